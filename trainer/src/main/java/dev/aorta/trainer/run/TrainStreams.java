package dev.aorta.trainer.run;

import dev.aorta.gpu.cuda.CudaDevice;
import dev.aorta.gpu.cuda.DeviceInfo;
import dev.aorta.gpu.cuda.Stream;
import dev.aorta.trainer.config.ConfigException;
import dev.aorta.trainer.config.StreamPriorities;
import dev.aorta.trainer.schedule.StreamRole;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * The trainer's four non-blocking streams, created with {@code distributed.stream_priorities}. A priority outside
 * the device's range is refused (CUDA would silently clamp it, and the run would not be the one asked for).
 */
final class TrainStreams implements AutoCloseable {
    private final Map<StreamRole, Stream> streams = new EnumMap<>(StreamRole.class);
    private final Map<Long, StreamRole> roles = new HashMap<>();

    TrainStreams(CudaDevice device, StreamPriorities priorities) {
        DeviceInfo info = device.info();
        for (StreamRole role : StreamRole.values()) {
            int p = switch (role) {
                case COMPUTE -> priorities.compute();
                case ALLREDUCE -> priorities.allreduce();
                case REDUCESCATTER -> priorities.reducescatter();
                case AUX -> priorities.aux();
            };
            if (p < info.greatestStreamPriority() || p > info.leastStreamPriority()) {
                close();
                throw new ConfigException("distributed.stream_priorities." + role.label() + " is " + p
                        + ", expected a priority in " + info.greatestStreamPriority() + ".."
                        + info.leastStreamPriority() + ", the range " + info.name()
                        + " supports (lower is more urgent).");
            }
            Stream s = device.createStream(p, true);
            streams.put(role, s);
            roles.put(s.address(), role);
        }
    }

    Stream get(StreamRole role) {
        return streams.get(role);
    }

    /** Stream addresses (as CUPTI's records carry them once registered) to roles. */
    Map<Long, StreamRole> rolesByAddress() {
        return Map.copyOf(roles);
    }

    @Override
    public void close() {
        streams.values().forEach(Stream::close);
    }
}
