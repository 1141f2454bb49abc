package dev.aorta.agent.device;

/**
 * Two device sources driven as one ({@code device-activity=validate}: CUPTI and sampled event pairs): every call goes
 * to both, CUPTI first, so that windows open and close them together.
 */
public final class BothSources implements DeviceActivitySource {
    private final DeviceActivitySource first;
    private final DeviceActivitySource second;

    public BothSources(DeviceActivitySource first, DeviceActivitySource second) {
        this.first = first;
        this.second = second;
    }

    /** "cupti+events(1/N)". */
    @Override
    public String name() {
        return first.name() + "+" + second.name();
    }

    @Override
    public void flush() {
        first.flush();
        second.flush();
    }

    @Override
    public void stop() {
        first.stop();
        second.stop();
    }

    @Override
    public void pause() {
        first.pause();
        second.pause();
    }

    @Override
    public void resume() {
        first.resume();
        second.resume();
    }

    @Override
    public void poll() {
        first.poll();
        second.poll();
    }

    @Override
    public void streamCreated(long stream) {
        first.streamCreated(stream);
        second.streamCreated(stream);
    }
}
