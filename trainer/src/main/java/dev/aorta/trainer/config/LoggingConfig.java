package dev.aorta.trainer.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** {@code logging}: the level of the per-rank log. */
public record LoggingConfig(Level level) {
    public enum Level {
        @JsonProperty("DEBUG") DEBUG,
        @JsonProperty("INFO") INFO,
        @JsonProperty("WARNING") WARNING,
        @JsonProperty("ERROR") ERROR
    }

    static LoggingConfig defaults() {
        return new LoggingConfig(Level.INFO);
    }
}
