package dev.aorta.workloads.dist;

/**
 * Slurm's compressed host lists ({@code SLURM_JOB_NODELIST}), e.g. {@code node[01-04,07],gpu5} or
 * {@code rack[1-2]-node[08-09]}: only the first host is needed (it runs rank 0, the rendezvous server).
 */
public final class SlurmNodeList {
    private SlurmNodeList() {
    }

    /** The first host of the list: the first entry, each bracket replaced by its first number as written. */
    public static String firstHost(String nodeList) {
        String list = nodeList == null ? "" : nodeList.trim();
        if (list.isEmpty()) {
            throw new IllegalArgumentException("SLURM_JOB_NODELIST is empty; expected a host list like node[01-04]");
        }
        StringBuilder host = new StringBuilder();
        int i = 0;
        while (i < list.length()) {
            char c = list.charAt(i);
            if (c == ',') {
                break;  // the end of the first entry (commas inside brackets are consumed below)
            }
            if (c == '[') {
                int close = list.indexOf(']', i);
                if (close < 0) {
                    throw new IllegalArgumentException("SLURM_JOB_NODELIST '" + nodeList + "': '[' without ']'");
                }
                String first = list.substring(i + 1, close).split(",", -1)[0].split("-", -1)[0].trim();
                if (first.isEmpty() || !first.chars().allMatch(Character::isDigit)) {
                    throw new IllegalArgumentException("SLURM_JOB_NODELIST '" + nodeList + "': expected a number range"
                            + " like [01-04,07] inside the brackets, got [" + list.substring(i + 1, close) + "]");
                }
                host.append(first);
                i = close + 1;
            } else {
                host.append(c);
                i++;
            }
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("SLURM_JOB_NODELIST '" + nodeList + "' names no host first");
        }
        return host.toString();
    }
}
