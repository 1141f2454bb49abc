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
        for (Map.Entry<String, HostTensor> e : torchFinal.entrySet()) {
            HostTensor mine = ourFinal.get(e.getKey());
            if (mine == null) {
                throw new IllegalArgumentException("our final weights have no tensor " + e.getKey());
            }
            double[] t = e.getValue().toDoubles();
            double[] o = mine.toDoubles();
            double err = relL2(o, t, null);
            if (!(err <= worstWeight)) {
                worstWeight = err;
                worstName = e.getKey();
            }
            if (start != null) {
                worstUpdate = Math.max(worstUpdate, relL2(o, t, start.get(e.getKey()).toDoubles()));
            }
        }
        boolean passed = worstLoss <= lossTol && worstWeight <= weightTol;
        out.printf(Locale.ROOT, "losses: %d steps, worst relative error %.2e at step %d (bar %.0e)%n", ours.size(),
                worstLoss, worstStep, lossTol);
        out.printf(Locale.ROOT, "final weights: %d tensors, worst relative L2 %.2e in %s (bar %.0e)%s%n",
                torchFinal.size(), worstWeight, worstName, weightTol,
                start == null ? "" : String.format(Locale.ROOT, "; of the update (final - start): worst %.2e",
                        worstUpdate));
        out.println(passed ? "PASS" : "FAIL");
        return new Outcome(ours.size(), worstLoss, worstStep, worstWeight, worstName, worstUpdate, passed);
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
