package dev.aorta.agent.config;

/** Bad agent configuration: the message names the option (or file) and what was expected. */
public final class OptionsException extends RuntimeException {
    public OptionsException(String message) {
        super(message);
    }
}
