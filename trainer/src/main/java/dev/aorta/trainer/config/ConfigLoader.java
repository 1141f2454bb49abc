package dev.aorta.trainer.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Builds a {@link TrainerConfig} from the defaults, an optional YAML file and any number of
 * {@code key.path=value} overrides, applied in order (a later one wins). Unlike AORTA, which drops unknown keys
 * silently and keeps only the last {@code --override} list, every key must be one the trainer knows and every value
 * must have the type of its default; the first violation is a {@link ConfigException} naming the key, where the
 * value came from (file:line or the override text) and what was expected.
 *
 * <p>Why a hand-walked tree: the file's keys keep their line numbers only while the YAML is being read, and each
 * key must be checked against the defaults before the records are bound (records have no "missing key keeps its
 * default"), so the loader reads the file into a tree, recording each key's line, merges it onto the defaults' tree
 * with the checks, and binds the result once.
 */
public final class ConfigLoader {
    /** Keys whose value is a free-form map (torch.compile's options in AORTA). */
    private static final Set<String> FREE_FORM = Set.of("compile.options");
    private static final Pattern KEY_PATH = Pattern.compile("[A-Za-z0-9_]+(\\.[A-Za-z0-9_]+)*");
    /** An empty value ("batch_size:") reads as empty, not as the text "". */
    private static final YAMLFactory YAML = YAMLFactory.builder()
            .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL).build();
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .build();

    /** Where each key's value came from: "FILE:LINE" or "--override TEXT"; keys left at their default are absent. */
    private final Map<String, String> origins = new HashMap<>();
    private final ObjectNode tree = MAPPER.valueToTree(TrainerConfig.defaults());

    private ConfigLoader() {
    }

    /** The defaults, then {@code file} (when not null), then each override in order. */
    public static TrainerConfig load(Path file, List<String> overrides) {
        ConfigLoader loader = new ConfigLoader();
        if (file != null) {
            loader.mergeFile(file);
        }
        for (String override : overrides) {
            loader.mergeOverride(override);
        }
        return loader.bind();
    }

    private void mergeFile(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("config file " + file + " does not exist.");
        } catch (IOException e) {
            throw new ConfigException("config file " + file + " cannot be read: " + e.getMessage() + ".");
        }
        JsonNode parsed = parse(text, file.toString(), null);
        if (parsed == null || parsed.isNull()) {
            return; // an empty file changes nothing
        }
        if (!parsed.isObject()) {
            throw new ConfigException(file + ":1: expected a YAML mapping of sections (training:, model:, ...), "
                    + "found " + describe(parsed) + ".");
        }
        merge(tree, (ObjectNode) parsed, "");
    }

    private void mergeOverride(String override) {
        String origin = "--override " + override;
        int eq = override.indexOf('=');
        String key = eq < 0 ? override : override.substring(0, eq).trim();
        if (eq < 0 || !KEY_PATH.matcher(key).matches()) {
            throw new ConfigException(origin + ": expected key.path=value, like training.batch_size=16.");
        }
        JsonNode value = parse(override.substring(eq + 1), null, origin);
        if (value == null) {
            throw new ConfigException(origin + ": expected a value after '=' for " + key + ".");
        }
        // The override becomes a one-key tree, so that it passes the same checks as a file.
        String[] parts = key.split("\\.");
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode at = root;
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            path.append(i == 0 ? "" : ".").append(parts[i]);
            origins.put(path.toString(), origin);
            if (i == parts.length - 1) {
                at.set(parts[i], value);
            } else {
                at = at.putObject(parts[i]);
            }
        }
        markOrigins(value, key, origin);
        merge(tree, root, "");
    }

    private void markOrigins(JsonNode value, String path, String origin) {
        if (value.isObject()) {
            value.properties().forEach(e -> {
                origins.put(path + "." + e.getKey(), origin);
                markOrigins(e.getValue(), path + "." + e.getKey(), origin);
            });
        }
    }

    /** Reads YAML into a tree; keys read from a file get "FILE:LINE" origins, keys of an override its text. */
    private JsonNode parse(String text, String fileName, String overrideOrigin) {
        try (JsonParser p = YAML.createParser(text)) {
            if (p.nextToken() == null) {
                return null;
            }
            return read(p, "", fileName, overrideOrigin);
        } catch (JsonProcessingException e) {
            String where = fileName != null ? fileName + ":" + e.getLocation().getLineNr() : overrideOrigin;
            throw new ConfigException(where + ": not valid YAML: " + e.getOriginalMessage().lines().findFirst()
                    .orElse("") + ".");
        } catch (IOException e) {
            throw new ConfigException((fileName != null ? fileName : overrideOrigin) + ": " + e.getMessage() + ".");
        }
    }

    private JsonNode read(JsonParser p, String path, String fileName, String overrideOrigin) throws IOException {
        JsonNodeFactory f = JsonNodeFactory.instance;
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                ObjectNode o = f.objectNode();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    String key = path.isEmpty() ? name : path + "." + name;
                    String origin = fileName != null ? fileName + ":" + p.currentTokenLocation().getLineNr()
                            : overrideOrigin;
                    if (o.has(name)) {
                        throw new ConfigException(origin + ": key " + key + " appears twice; expected each key once.");
                    }
                    if (fileName != null) {
                        origins.put(key, origin);
                    }
                    p.nextToken();
                    o.set(name, read(p, key, fileName, overrideOrigin));
                }
                return o;
            }
            case START_ARRAY -> {
                ArrayNode a = f.arrayNode();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    a.add(read(p, path, fileName, overrideOrigin));
                }
                return a;
            }
            case VALUE_STRING -> {
                return f.textNode(p.getText());
            }
            case VALUE_NUMBER_INT -> {
                return f.numberNode(p.getBigIntegerValue());
            }
            case VALUE_NUMBER_FLOAT -> {
                return f.numberNode(p.getDoubleValue());
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return f.booleanNode(t == JsonToken.VALUE_TRUE);
            }
            case VALUE_NULL -> {
                return f.nullNode();
            }
            default -> throw new ConfigException((fileName != null ? fileName + ":"
                    + p.currentTokenLocation().getLineNr() : overrideOrigin) + ": unexpected YAML token " + t + ".");
        }
    }

    /** Merges {@code source} onto {@code target}, checking each key exists and each value has its default's type. */
    private void merge(ObjectNode target, ObjectNode source, String prefix) {
        for (Map.Entry<String, JsonNode> e : source.properties()) {
            String name = e.getKey();
            String key = prefix.isEmpty() ? name : prefix + "." + name;
            JsonNode value = e.getValue();
            JsonNode def = target.get(name);
            if (def == null) {
                String where = prefix.isEmpty() ? "the sections are " : "section " + prefix + " has ";
                throw new ConfigException(origins.get(key) + ": unknown key " + key + "; " + where
                        + String.join(", ", iterable(target.fieldNames())) + ".");
            }
            if (FREE_FORM.contains(key)) {
                require(value.isObject(), key, value, "a mapping of option names to values");
                target.set(name, value);
            } else if (def.isObject()) {
                if (value.isNull()) {
                    continue; // "training:" with every key commented out: an empty section
                }
                require(value.isObject(), key, value, "a section (a mapping of keys to values)");
                merge((ObjectNode) def, (ObjectNode) value, key);
            } else {
                target.set(name, conform(def, value, key));
            }
        }
    }

    /** {@code value} as a node of {@code def}'s type, or a ConfigException saying which type was expected. */
    private JsonNode conform(JsonNode def, JsonNode value, String key) {
        if (def.isInt()) {
            require(value.isIntegralNumber() && value.canConvertToInt(), key, value, "a whole number");
            return JsonNodeFactory.instance.numberNode(value.intValue());
        }
        if (def.isIntegralNumber()) {
            require(value.isIntegralNumber() && value.canConvertToLong(), key, value, "a whole number");
            return JsonNodeFactory.instance.numberNode(value.longValue());
        }
        if (def.isNumber()) {
            require(value.isNumber(), key, value, "a number");
            return DoubleNode.valueOf(value.doubleValue());
        }
        if (def.isBoolean()) {
            require(value.isBoolean(), key, value, "true or false");
            return value;
        }
        if (def.isTextual()) {
            // A scalar is taken as its text (output_dir: 2024); whether the text is allowed is the record's to say.
            require(value.isValueNode() && !value.isNull(), key, value, "a text value");
            return TextNode.valueOf(value.asText());
        }
        if (def.isArray()) {
            require(value.isArray(), key, value, "a list like " + def);
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            for (JsonNode element : value) {
                out.add(def.isEmpty() ? element : conform(def.get(0), element, key));
            }
            return out;
        }
        throw new IllegalStateException("no type rule for the default of " + key + ": " + def);
    }

    private void require(boolean ok, String key, JsonNode value, String expected) {
        if (!ok) {
            throw new ConfigException(problem(key, value, expected));
        }
    }

    private TrainerConfig bind() {
        try {
            return MAPPER.treeToValue(tree, TrainerConfig.class);
        } catch (ValueInstantiationException e) {
            if (e.getCause() instanceof ConfigValueException v) {
                throw new ConfigException(problem(v.key, at(v.key), v.getMessage()));
            }
            throw new ConfigException("configuration: " + e.getOriginalMessage() + ".");
        } catch (InvalidFormatException e) {
            String key = key(e);
            String expected = e.getTargetType().isEnum()
                    ? "one of " + Arrays.stream(e.getTargetType().getEnumConstants()).map(ConfigLoader::jsonName)
                            .collect(Collectors.joining(", "))
                    : "a value of type " + e.getTargetType().getSimpleName();
            throw new ConfigException(problem(key, at(key), expected));
        } catch (JsonMappingException e) {
            String key = key(e);
            throw new ConfigException(problem(key, at(key),
                    "a value Jackson can bind (" + e.getOriginalMessage() + ")"));
        } catch (JsonProcessingException e) {
            throw new ConfigException("configuration: " + e.getOriginalMessage() + ".");
        }
    }

    private static String key(JsonMappingException e) {
        return e.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining(".")).replace(".[", "[");
    }

    private static String jsonName(Object enumConstant) {
        return MAPPER.valueToTree(enumConstant).asText();
    }

    private JsonNode at(String key) {
        JsonNode n = tree;
        for (String part : key.split("\\.")) {
            n = n.path(part);
        }
        return n;
    }

    /** "ORIGIN: KEY is VALUE, expected EXPECTED." with the origin of the key's value, or "(its default)". */
    private String problem(String key, JsonNode value, String expected) {
        String origin = origins.get(key.replaceAll("\\[\\d+]$", ""));
        return origin != null
                ? origin + ": " + key + " is " + describe(value) + ", expected " + expected + "."
                : key + " is " + describe(value) + " (its default), expected " + expected + ".";
    }

    private static String describe(JsonNode value) {
        if (value.isObject()) {
            return "a section";
        }
        if (value.isArray()) {
            return "the list " + value;
        }
        if (value.isNull() || value.isMissingNode()) {
            return "empty";
        }
        return value.isTextual() ? "\"" + value.asText() + "\"" : value.toString();
    }

    private static <T> Iterable<T> iterable(Iterator<T> it) {
        return () -> it;
    }
}
