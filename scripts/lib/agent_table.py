"""Rows of the agent's GPU tables (scripts/agent-acceptance-16.sh, scripts/agent-events-gpu.sh), read from the files
their steps leave in one directory: the A/B result of `aorta overhead --json`, the validate line of
device-activity=validate, agent-advice-cost.sh's lines.txt. Each row: bullet, measured value, bar, PASS/FAIL/SKIP."""
import json
import os
import re
import statistics


class Table:
    def __init__(self, out):
        self.out = out
        self.rows = []

    def row(self, bullet, value, bar, status):
        self.rows.append((bullet, value, bar, status))

    def text(self, name):
        p = os.path.join(self.out, name)
        return open(p, errors="replace").read() if os.path.exists(p) else None

    def skipped(self, step):
        """Why a step did not run or finish (its STEP.skipped file), or None."""
        t = self.text(step + ".skipped")
        return t.strip() if t else None

    def ab(self, name, bullet, bar_text, decide):
        """An `aorta overhead --json` result: the metric with the highest interval shown, PASS if all decide."""
        p = os.path.join(self.out, name + ".json")
        if self.skipped(name):
            self.row(bullet, self.skipped(name), bar_text, "SKIP")
            return
        if not os.path.exists(p):
            self.row(bullet, "no result (%s.log)" % name, bar_text, "FAIL")
            return
        ms = json.load(open(p))["metrics"]
        worst = max(ms, key=lambda m: m["ci_high"])
        value = "%s B/A %.4f [%.4f, %.4f]" % (worst["metric"], worst["ratio"], worst["ci_low"], worst["ci_high"])
        self.row(bullet, value, bar_text, "PASS" if all(decide(m) for m in ms) else "FAIL")

    def validate(self, name, bullet, max_us=1.0, step=None):
        """device-activity=validate's line in the agent's stderr: the same launches timed by event pairs and CUPTI."""
        bar = "max |d| <= %g us" % max_us
        if step and self.skipped(step):
            self.row(bullet, self.skipped(step), bar, "SKIP")
            return
        err = self.text(name) or ""
        v = re.search(r"validate: (\d+) of (\d+) sampled kernels matched.*?\|duration event pair - CUPTI\| median "
                      r"([0-9.]+) us, p95 ([0-9.]+) us, max ([0-9.]+) us", err)
        if v:
            self.row(bullet, "%s/%s matched, |d| median %s us, p95 %s us, max %s us" % v.group(1, 2, 3, 4, 5), bar,
                     "PASS" if float(v.group(5)) <= max_us else "FAIL")
        else:
            why = re.search(r"validate: .*", err)
            self.row(bullet, why.group(0)[:60] if why else "no validate line", bar, "FAIL")

    def gate(self, names, bullet):
        """Whether the agent gated its sampled streams, from its log line in any of the named stderr files."""
        for name in names:
            m = re.search(r"sampled event pairs on device \d+: (gated|no gate \([^)]*\))", self.text(name) or "")
            if m:
                self.row(bullet, m.group(1), "gated", "PASS" if m.group(1) == "gated" else "FAIL")
                return
        self.row(bullet, "no gate line in " + ", ".join(names), "gated", "FAIL")

    def advice_cost(self, name, bullet):
        """agent-advice-cost.sh's lines.txt: one row per arm and stream count, the median over processes of each
        process's median delta (ns per launch). Informational: no bar."""
        lines = (self.text(name) or "").splitlines()
        deltas = {}
        for line in lines:
            fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
            if "delta_median_ns" in fields:
                key = (line.split()[0], fields.get("streams", "?"))
                deltas.setdefault(key, []).append(float(fields["delta_median_ns"]))
        if not deltas:
            self.row(bullet, "no advice_cost lines (%s)" % name, "-", "FAIL")
            return
        for (arm, streams), ds in deltas.items():
            self.row("%s, %s, %s stream(s)" % (bullet, arm, streams),
                     "%.1f ns/launch (%s)" % (statistics.median(ds), " ".join("%.1f" % d for d in ds)), "-", "INFO")

    def print(self):
        """The table, then the count of FAIL and SKIP; returns the exit status (1 on any FAIL)."""
        rows = self.rows
        wb = max(len(x[0]) for x in rows)
        wv = max(len(x[1]) for x in rows)
        wr = max(len(x[2]) for x in rows)
        print("%-*s  %-*s  %-*s  %s" % (wb, "BULLET", wv, "MEASURED", wr, "BAR", "STATUS"))
        for x in rows:
            print("%-*s  %-*s  %-*s  %s" % (wb, x[0], wv, x[1], wr, x[2], x[3]))
        fails = sum(1 for x in rows if x[3] == "FAIL")
        print("%d FAIL, %d SKIP; logs in %s" % (fails, sum(1 for x in rows if x[3] == "SKIP"), self.out))
        return 1 if fails else 0
