package dev.aorta.trainer.config;

/**
 * A configuration the trainer refuses, with a one-sentence message naming the key, where its value came from (a
 * file and line, or the {@code --override} text) and what was expected.
 */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}
