package dev.aorta.analyzer.report;

import dev.aorta.core.metric.ActivityClass;
import dev.aorta.analyzer.clock.RankTimeline;
import dev.aorta.analyzer.metrics.LabelledStreamUtilization;
import dev.aorta.analyzer.metrics.Window;
import dev.aorta.analyzer.metrics.WindowReport;
import dev.aorta.core.event.DeviceActivity;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The report's PNG plots, drawn with JFreeChart (headless). */
public final class Plots {
    private static final Map<ActivityClass, Color> CLASS_COLORS = new EnumMap<>(Map.of(
            ActivityClass.COMPUTE, new Color(0x1f77b4), ActivityClass.COMMUNICATION, new Color(0xd62728),
            ActivityClass.MEMORY, new Color(0x2ca02c), ActivityClass.OTHER, Color.GRAY));

    private Plots() {
    }

    /** Compute, communication and overlap time per iteration (ms; mean over ranks), as PNG bytes. */
    public static byte[] timeline(String label, List<WindowReport> iterations) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Map<Long, List<WindowReport>> byStep = new TreeMap<>();
        long index = 0;
        for (WindowReport r : iterations) {
            long x = r.window().kind() == Window.Kind.STEP ? r.window().step() : index++;
            byStep.computeIfAbsent(x, k -> new ArrayList<>()).add(r);
        }
        XYSeries compute = new XYSeries("compute (ms)");
        XYSeries comm = new XYSeries("communication (ms)");
        XYSeries overlap = new XYSeries("overlap (ms)");
        byStep.forEach((step, rs) -> {
            compute.add(step.doubleValue(), rs.stream().mapToLong(r -> r.overlap().computeNs()).average().orElse(0) / 1e6);
            comm.add(step.doubleValue(), rs.stream().mapToLong(r -> r.overlap().commNs()).average().orElse(0) / 1e6);
            overlap.add(step.doubleValue(), rs.stream().mapToLong(r -> r.overlap().overlapNs()).average().orElse(0) / 1e6);
        });
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(compute);
        data.addSeries(comm);
        data.addSeries(overlap);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        renderer.setSeriesPaint(0, CLASS_COLORS.get(ActivityClass.COMPUTE));
        renderer.setSeriesPaint(1, CLASS_COLORS.get(ActivityClass.COMMUNICATION));
        renderer.setSeriesPaint(2, new Color(0x9467bd));
        XYPlot plot = new XYPlot(data, new NumberAxis("iteration (step)"), new NumberAxis("ms per iteration"), renderer);
        NumberAxis steps = (NumberAxis) plot.getDomainAxis();
        steps.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        steps.setAutoRangeIncludesZero(false);
        JFreeChart chart = new JFreeChart(label + ": compute vs overlap per iteration", JFreeChart.DEFAULT_TITLE_FONT,
                plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        return png(chart, 900, 450);
    }

    /**
     * Device activity of one rank in one window, coloured by class, as PNG bytes: one row per stream of
     * {@code streams.shown()} (in stream order), and one last row holding the activity of every other stream, so the
     * chart stays readable with hundreds of streams and still shows all the work.
     */
    public static byte[] gantt(String title, RankTimeline t, Window w, StreamSelection streams) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<Long> rows = streams.shown().stream().map(LabelledStreamUtilization::stream).sorted().toList();
        Map<Long, Integer> rowOfStream = new HashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            rowOfStream.put(rows.get(i), i);
        }
        int otherRow = rows.size();
        Set<Long> otherStreams = new HashSet<>();
        List<DeviceActivity> acts = t.activities();
        Map<ActivityClass, XYIntervalSeries> series = new EnumMap<>(ActivityClass.class);
        for (ActivityClass c : ActivityClass.values()) {
            series.put(c, new XYIntervalSeries(c.name().toLowerCase(Locale.ROOT)));
        }
        for (int i = 0; i < acts.size() && acts.get(i).startNs() < w.endNs(); i++) {
            DeviceActivity a = acts.get(i);
            if (a.endNs() <= w.startNs()) {
                continue;
            }
            double from = (Math.max(a.startNs(), w.startNs()) - w.startNs()) / 1e6;
            double to = (Math.min(a.endNs(), w.endNs()) - w.startNs()) / 1e6;
            int row = rowOfStream.getOrDefault(a.stream(), otherRow);
            if (row == otherRow) {
                otherStreams.add(a.stream());
            }
            series.get(t.classOf(i)).add(from, from, to, row, row - 0.4, row + 0.4);
        }
        XYIntervalSeriesCollection data = new XYIntervalSeriesCollection();
        XYBarRenderer renderer = new XYBarRenderer();
        renderer.setUseYInterval(true);
        renderer.setShadowVisible(false);
        renderer.setDrawBarOutline(false);
        renderer.setBarPainter(new org.jfree.chart.renderer.xy.StandardXYBarPainter());
        int k = 0;
        for (Map.Entry<ActivityClass, XYIntervalSeries> e : series.entrySet()) {
            if (e.getValue().getItemCount() > 0) {
                data.addSeries(e.getValue());
                renderer.setSeriesPaint(k++, CLASS_COLORS.get(e.getKey()));
            }
        }
        List<String> names = new ArrayList<>(rows.stream().map(s -> "stream " + t.streamLabel(s)).toList());
        if (!otherStreams.isEmpty()) {
            names.add(otherStreams.size() + " more stream" + (otherStreams.size() == 1 ? "" : "s"));
        }
        XYPlot plot = new XYPlot(data, new NumberAxis("ms since the window start"),
                new SymbolAxis("", names.toArray(String[]::new)), renderer);
        JFreeChart chart = new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        return png(chart, 1100, Math.max(250, 90 + 45 * names.size()));
    }

    private static byte[] png(JFreeChart chart, int width, int height) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ChartUtils.writeChartAsPNG(out, chart, width, height);
        return out.toByteArray();
    }
}
