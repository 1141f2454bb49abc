package dev.aorta.trainer.config;

/**
 * A value a section record rejects while it is built: carries the dotted key so that {@link ConfigLoader} can say
 * where the value came from. Never escapes the loader.
 */
final class ConfigValueException extends IllegalArgumentException {
    final String key;

    ConfigValueException(String key, String problem) {
        super(problem);
        this.key = key;
    }

    static void require(boolean ok, String key, String problem) {
        if (!ok) {
            throw new ConfigValueException(key, problem);
        }
    }
}
