package dev.aorta.trainer.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.aorta.model.HostTensor;
import dev.aorta.model.ParameterFile;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Our training run against scripts/trainer-reference.py's replay of it: the per-step losses (our metrics file
 * against the replay's losses.json), by relative error |ours − torch| / |torch|, and the final weights, by the
 * relative L2 error ‖ours − torch‖ / ‖torch‖ of each tensor. With the starting weights given, the error of the
 * update (final − start) is shown too: it is what the steps changed, and the weights' error is small largely
 * because the weights moved little.
 *
 * <p>Usage: {@code ReferenceComparison METRICS_JSONL LOSSES_JSON OUR_FINAL TORCH_FINAL LOSS_TOL WEIGHT_TOL
 * [START_WEIGHTS]}; exits 0 when every step's loss and every tensor are within tolerance, 1 otherwise.
 */
public final class ReferenceComparison {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The outcome: the worst step and tensor, and whether both are within their bars. */
    public record Outcome(int steps, double worstLossError, int worstLossStep, double worstWeightError,
                          String worstWeight, double worstUpdateError, boolean passed) {
    }

    private ReferenceComparison() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 6) {
            System.err.println("usage: ReferenceComparison METRICS_JSONL LOSSES_JSON OUR_FINAL TORCH_FINAL LOSS_TOL"
                    + " WEIGHT_TOL [START_WEIGHTS]");
            System.exit(2);
        }
        Map<String, HostTensor> start = args.length > 6 ? ParameterFile.read(Path.of(args[6])) : null;
        Outcome o = compare(ourLosses(Path.of(args[0])), torchLosses(Path.of(args[1])),
                ParameterFile.read(Path.of(args[2])), ParameterFile.read(Path.of(args[3])), start,
                Double.parseDouble(args[4]), Double.parseDouble(args[5]), System.out);
        System.exit(o.passed() ? 0 : 1);
    }

    /** The {@code loss} of every line of a metrics file, in order. */
    public static List<Double> ourLosses(Path metrics) throws IOException {
        List<Double> out = new ArrayList<>();
        try (BufferedReader r = Files.newBufferedReader(metrics)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                out.add(JSON.readTree(line).get("loss").asDouble());
            }
        }
        return out;
    }

    public static List<Double> torchLosses(Path lossesJson) throws IOException {
        List<Double> out = new ArrayList<>();
        for (JsonNode n : JSON.readTree(lossesJson.toFile()).get("loss")) {
            out.add(n.asDouble());
        }
        return out;
    }

    public static Outcome compare(List<Double> ours, List<Double> torch, Map<String, HostTensor> ourFinal,
                                  Map<String, HostTensor> torchFinal, Map<String, HostTensor> start,
                                  double lossTol, double weightTol, PrintStream out) {
        if (ours.size() != torch.size()) {
            throw new IllegalArgumentException("our run has " + ours.size() + " steps and the reference "
                    + torch.size() + "; expected the same steps");
        }
        double worstLoss = 0;
        int worstStep = -1;
        out.println("step  ours loss     torch loss    rel error");
        for (int s = 0; s < ours.size(); s++) {
            double e = Math.abs(ours.get(s) - torch.get(s)) / Math.abs(torch.get(s));
            if (!(e <= worstLoss)) {
                worstLoss = e;
                worstStep = s;
            }
            if (s < 3 || s % 10 == 9 || s == ours.size() - 1) {
                out.printf(Locale.ROOT, "%4d  %.8f  %.8f  %.2e%n", s, ours.get(s), torch.get(s), e);
            }
        }
        double worstWeight = 0;
        String worstName = null;
        double worstUpdate = 0;
        List<String> over = new ArrayList<>();
        List<String> unjudged = new ArrayList<>();
        for (Map.Entry<String, HostTensor> e : torchFinal.entrySet()) {
            HostTensor mine = ourFinal.get(e.getKey());
            if (mine == null) {
                throw new IllegalArgumentException("our final weights have no tensor " + e.getKey());
            }
            double[] base = start == null ? null : start.get(e.getKey()).toDoubles();
            for (Part p : parts(e.getKey(), e.getValue().toDoubles().length)) {
                double[] t = Arrays.copyOfRange(e.getValue().toDoubles(), p.from, p.to);
                double[] o = Arrays.copyOfRange(mine.toDoubles(), p.from, p.to);
                double[] b = base == null ? null : Arrays.copyOfRange(base, p.from, p.to);
                double err = relL2(o, t, null);
                double upd = b == null ? Double.NaN : relL2(o, t, b);
                if (!p.judged) {
                    unjudged.add(String.format(Locale.ROOT, "%s %.2e", p.name, err));
                    continue;
                }
                if (!(err <= worstWeight)) {
                    worstWeight = err;
                    worstName = p.name;
                }
                if (!(err <= weightTol)) {
                    over.add(String.format(Locale.ROOT, "%s %.2e", p.name, err));
                }
                if (b != null && !(upd <= worstUpdate)) {
                    worstUpdate = upd;
                }
            }
        }
        boolean passed = worstLoss <= lossTol && worstWeight <= weightTol;
        out.printf(Locale.ROOT, "losses: %d steps, worst relative error %.2e at step %d (bar %.0e)%n", ours.size(),
                worstLoss, worstStep, lossTol);
        out.printf(Locale.ROOT, "final weights: %d tensors, worst relative L2 %.2e in %s (bar %.0e)%s%n",
                torchFinal.size(), worstWeight, worstName, weightTol,
                start == null ? "" : String.format(Locale.ROOT, "; of the update (final - start): worst %.2e",
                        worstUpdate));
        if (!over.isEmpty()) {
            out.println("over the bar: " + String.join(", ", over));
        }
        if (!unjudged.isEmpty()) {
            out.println("not judged (key biases: their gradient is 0 in exact arithmetic, so their updates are"
                    + " rounding noise that Adam scales to +-lr): " + String.join(", ", unjudged.subList(0,
                    Math.min(3, unjudged.size()))) + (unjudged.size() > 3 ? ", ..." : ""));
        }
        out.println(passed ? "PASS" : "FAIL");
        return new Outcome(ours.size(), worstLoss, worstStep, worstWeight, worstName, worstUpdate, passed);
    }

    /** A range of a tensor's elements, compared on its own. */
    record Part(String name, int from, int to, boolean judged) {
    }

    /**
     * The parts of tensor {@code name} compared separately: an attention in_proj_bias is [q | k | v]; its key third
     * gets a zero gradient in exact arithmetic (softmax ignores a shift shared by every key), so what either
     * implementation does to it is rounding noise, which Adam's normalised step turns into ±lr updates. It is
     * shown, not judged. Every other tensor is one judged part.
     */
    static List<Part> parts(String name, int length) {
        if (name.endsWith("self_attn.in_proj_bias") && length % 3 == 0) {
            int d = length / 3;
            return List.of(new Part(name + "[q]", 0, d, true), new Part(name + "[k]", d, 2 * d, false),
                    new Part(name + "[v]", 2 * d, length, true));
        }
        return List.of(new Part(name, 0, length, true));
    }

    /** ‖ours − ref‖ / ‖ref‖, of (x − base) when {@code base} is given. */
    static double relL2(double[] ours, double[] ref, double[] base) {
        double num = 0;
        double den = 0;
        for (int i = 0; i < ref.length; i++) {
            double r = base == null ? ref[i] : ref[i] - base[i];
            double o = base == null ? ours[i] : ours[i] - base[i];
            num += (o - r) * (o - r);
            den += r * r;
        }
        return den == 0 ? Math.sqrt(num) : Math.sqrt(num / den);
    }
}
