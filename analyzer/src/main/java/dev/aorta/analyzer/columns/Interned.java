package dev.aorta.analyzer.columns;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Values stored once each and referred to by an int id: a trace repeats a few thousand kernel and API names (and
 * launch shapes) over millions of records, each read by the parser as a new object.
 */
final class Interned<T> {
    private final Map<T, Integer> ids = new HashMap<>();
    private final List<T> values = new ArrayList<>();

    int id(T value) {
        Integer id = ids.get(value);
        if (id == null) {
            id = values.size();
            values.add(value);
            ids.put(value, id);
        }
        return id;
    }

    T value(int id) {
        return values.get(id);
    }
}
