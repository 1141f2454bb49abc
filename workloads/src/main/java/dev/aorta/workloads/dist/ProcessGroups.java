package dev.aorta.workloads.dist;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --process-groups "[0,1,2,3],[4,5,6,7]"}: disjoint groups of world ranks that together hold every rank;
 * each rank's collectives run inside its own group. Groups are numbered from 1 in messages, in the order written.
 */
public final class ProcessGroups {
    static final String OPTION = "--process-groups";

    private final List<List<Integer>> groups;

    private ProcessGroups(List<List<Integer>> groups) {
        this.groups = groups;
    }

    /** Parses the syntax and checks what needs no world size: empty groups, negative and repeated ranks. */
    public static ProcessGroups parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException(OPTION + " is empty; expected groups of ranks like [0,1],[2,3]");
        }
        List<List<Integer>> groups = new ArrayList<>();
        Map<Integer, Integer> groupOfRank = new HashMap<>();
        String s = text.strip();
        int i = 0;
        while (true) {
            i = skipSpaces(s, i);
            if (i >= s.length() || s.charAt(i) != '[') {
                throw syntax(text, "expected '[' to open group " + (groups.size() + 1));
            }
            int close = s.indexOf(']', i);
            if (close < 0) {
                throw syntax(text, "group " + (groups.size() + 1) + " has no closing ']'");
            }
            int number = groups.size() + 1;
            List<Integer> group = new ArrayList<>();
            String body = s.substring(i + 1, close);
            if (!body.isBlank()) {
                for (String item : body.split(",", -1)) {
                    int rank = rank(item.strip(), number);
                    Integer earlier = groupOfRank.putIfAbsent(rank, number);
                    if (earlier != null) {
                        throw new IllegalArgumentException(OPTION + ": rank " + rank + (earlier == number
                                ? " appears twice in group " + number
                                : " appears in groups " + earlier + " and " + number) + "; every rank belongs to one group");
                    }
                    group.add(rank);
                }
            }
            if (group.isEmpty()) {
                throw new IllegalArgumentException(OPTION + ": group " + number + " is empty");
            }
            groups.add(List.copyOf(group));
            i = skipSpaces(s, close + 1);
            if (i == s.length()) {
                break;
            }
            if (s.charAt(i) != ',') {
                throw syntax(text, "expected ',' between groups after group " + number);
            }
            i++;
        }
        return new ProcessGroups(List.copyOf(groups));
    }

    /** Checks the groups against the world: every rank 0..worldSize−1 in a group, no rank outside. */
    public ProcessGroups validateFor(int worldSize) {
        boolean[] seen = new boolean[worldSize];
        for (List<Integer> g : groups) {
            for (int r : g) {
                if (r >= worldSize) {
                    throw new IllegalArgumentException(OPTION + ": rank " + r + " is outside the world of " + worldSize
                            + (worldSize == 1 ? " rank" : " ranks (0.." + (worldSize - 1) + ")"));
                }
                seen[r] = true;
            }
        }
        for (int r = 0; r < worldSize; r++) {
            if (!seen[r]) {
                throw new IllegalArgumentException(OPTION + ": rank " + r + " is in no group; every rank of the world of "
                        + worldSize + " must be in one");
            }
        }
        return this;
    }

    public List<List<Integer>> groups() {
        return groups;
    }

    /** Index (from 0) of the first group holding {@code rank}. */
    public int groupIndexOf(int rank) {
        for (int g = 0; g < groups.size(); g++) {
            if (groups.get(g).contains(rank)) {
                return g;
            }
        }
        throw new IllegalArgumentException(OPTION + ": rank " + rank + " is in no group");
    }

    /** The world ranks of {@code rank}'s group in ascending order: the group's ranks 0, 1, ... */
    public List<Integer> membersOf(int rank) {
        return groups.get(groupIndexOf(rank)).stream().sorted().toList();
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (List<Integer> g : groups) {
            if (!b.isEmpty()) {
                b.append(',');
            }
            b.append(g.toString().replace(" ", ""));
        }
        return b.toString();
    }

    private static int rank(String item, int group) {
        if (item.isEmpty()) {
            throw new IllegalArgumentException(OPTION + ": group " + group + " has an empty entry (two commas?)");
        }
        int rank;
        try {
            rank = Integer.parseInt(item);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(OPTION + ": '" + item + "' in group " + group + " is not an integer");
        }
        if (rank < 0) {
            throw new IllegalArgumentException(OPTION + ": rank " + rank + " in group " + group + " is negative");
        }
        return rank;
    }

    private static int skipSpaces(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static IllegalArgumentException syntax(String text, String what) {
        return new IllegalArgumentException(OPTION + " '" + text + "': " + what
                + "; expected groups of ranks like [0,1],[2,3]");
    }
}
