package dev.aorta.cli.check;

/**
 * One line of the GPU check's table.
 *
 * @param value    what was measured, with its unit
 * @param criterion what it was judged against ("" when it is information only)
 * @param status   PASS, FAIL, INFO or SKIP
 */
public record CheckResult(String step, String item, String value, String criterion, Status status) {
    public enum Status { PASS, FAIL, INFO, SKIP }

    public static CheckResult judged(String step, String item, String value, String criterion, boolean ok) {
        return new CheckResult(step, item, value, criterion, ok ? Status.PASS : Status.FAIL);
    }

    public static CheckResult info(String step, String item, String value) {
        return new CheckResult(step, item, value, "", Status.INFO);
    }
}
