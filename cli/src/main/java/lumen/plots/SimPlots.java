package lumen.plots;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Rectangle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import lumen.sim.SimMetrics;
import lumen.sim.SimResult;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.jfree.svg.SVGGraphics2D;

/**
 * The simulator's figures, as PNG and SVG: a timeline around the failure (the two series the
 * recovery time is measured on, TTFT by the time of the first token and the time per token of the
 * decode steps; queue depth; throughput; one line per policy, like the paper's Figure 6) and TTFT
 * CDFs.
 */
public final class SimPlots {
    private static final Color[] COLORS = {new Color(0x33, 0x33, 0x33), new Color(0xD5, 0x5E, 0x00), new Color(0x00, 0x72, 0xB2),
        new Color(0x00, 0x9E, 0x73), new Color(0xCC, 0x79, 0xA7), new Color(0xE6, 0x9F, 0x00), new Color(0x56, 0xB4, 0xE9)};

    private SimPlots() {}

    /**
     * The timeline from {@code fromMs} to {@code toMs}: one line per run, a marker at each failure.
     *
     * @return the files written (PNG and SVG)
     */
    public static List<Path> timeline(Map<String, SimResult> runs, double[] failAtMs, double fromMs, double toMs, Path dir, String name)
            throws IOException {
        XYSeriesCollection ttft = new XYSeriesCollection();
        XYSeriesCollection tpot = new XYSeriesCollection();
        XYSeriesCollection queue = new XYSeriesCollection();
        XYSeriesCollection tput = new XYSeriesCollection();
        for (Map.Entry<String, SimResult> e : runs.entrySet()) {
            // the series the recovery time is measured on, in 2-s steps
            XYSeries t = new XYSeries(e.getKey());
            XYSeries p = new XYSeries(e.getKey());
            SimResult.Series first = SimMetrics.ttftSeries(e.getValue());
            for (int sec = (int) (fromMs / 1000) / 2 * 2; sec < toMs / 1000; sec += 2) {
                double a = first.mean(sec, sec + 2);
                double b = e.getValue().tpotSteps.mean(sec, sec + 2);
                if (!Double.isNaN(a)) {
                    t.add(sec + 1, a / 1000);
                }
                if (!Double.isNaN(b)) {
                    p.add(sec + 1, b);
                }
            }
            ttft.addSeries(t);
            tpot.addSeries(p);
            XYSeries q = new XYSeries(e.getKey());
            XYSeries th = new XYSeries(e.getKey());
            List<SimResult.Sample> ss = e.getValue().samples;
            for (int i = 0; i < ss.size(); i++) {
                SimResult.Sample s = ss.get(i);
                if (s.atMs() < fromMs || s.atMs() > toMs) {
                    continue;
                }
                q.add(s.atMs() / 1000, s.queued());
                if (i >= 5) {
                    SimResult.Sample b = ss.get(i - 5);
                    th.add(s.atMs() / 1000, (s.tokens() - b.tokens()) / ((s.atMs() - b.atMs()) / 1000));
                }
            }
            queue.addSeries(q);
            tput.addSeries(th);
        }
        NumberAxis time = new NumberAxis("time (s)");
        time.setAutoRangeIncludesZero(false);
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
        XYPlot top = panel(ttft, "mean TTFT (s), by first token", failAtMs, runs.size());
        plot.add(top, 2);
        plot.add(panel(tpot, "time per token (ms), by decode step", failAtMs, runs.size()), 2);
        plot.add(panel(queue, "queued requests", failAtMs, runs.size()), 1);
        plot.add(panel(tput, "output tokens/s", failAtMs, runs.size()), 1);
        plot.setFixedLegendItems(top.getLegendItems());
        JFreeChart chart = new JFreeChart(name, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        return save(chart, dir, name, 900, 850);
    }

    /** CDFs of TTFT, one line per run, over the requests {@code include} keeps. */
    public static List<Path> ttftCdf(Map<String, List<SimResult.Req>> runs, Path dir, String name) throws IOException {
        XYSeriesCollection c = new XYSeriesCollection();
        for (Map.Entry<String, List<SimResult.Req>> e : runs.entrySet()) {
            double[] v = e.getValue().stream().mapToDouble(q -> q.interrupted ? q.replayTtftMs() : q.ttftMs())
                    .filter(x -> !Double.isNaN(x)).sorted().toArray();
            XYSeries s = new XYSeries(e.getKey());
            int step = Math.max(1, v.length / 400);
            for (int i = 0; i < v.length; i += step) {
                s.add(v[i] / 1000, (i + 1) / (double) v.length);
            }
            if (v.length > 0) {
                s.add(v[v.length - 1] / 1000, 1.0);
            }
            c.addSeries(s);
        }
        XYPlot plot = panel(c, "fraction of requests", new double[0], runs.size());
        NumberAxis x = new NumberAxis("TTFT (s)");
        plot.setDomainAxis(x);
        JFreeChart chart = new JFreeChart(name, JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        return save(chart, dir, name, 700, 450);
    }

    /**
     * Points and lines of named series of (x, y): {@code logX} for a logarithmic x axis, a dashed
     * vertical marker at {@code markX} (none when NaN), a zero line.
     */
    public static List<Path> xy(Map<String, List<double[]>> series, String xLabel, String yLabel, boolean logX, double markX, Path dir, String name)
            throws IOException {
        XYSeriesCollection c = new XYSeriesCollection();
        for (Map.Entry<String, List<double[]>> e : series.entrySet()) {
            XYSeries s = new XYSeries(e.getKey());
            e.getValue().forEach(v -> s.add(v[0], v[1]));
            c.addSeries(s);
        }
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < c.getSeriesCount(); i++) {
            r.setSeriesPaint(i, COLORS[(1 + i) % COLORS.length]);
            r.setSeriesStroke(i, new BasicStroke(1.6f));
        }
        NumberAxis y = new NumberAxis(yLabel);
        y.setAutoRangeIncludesZero(true);
        org.jfree.chart.axis.ValueAxis x;
        if (logX) {
            org.jfree.chart.axis.LogarithmicAxis la = new org.jfree.chart.axis.LogarithmicAxis(xLabel);
            la.setStrictValuesFlag(false);
            x = la;
        } else {
            NumberAxis n = new NumberAxis(xLabel);
            n.setAutoRangeIncludesZero(false);
            x = n;
        }
        XYPlot p = new XYPlot(c, x, y, r);
        p.setBackgroundPaint(Color.WHITE);
        p.setDomainGridlinePaint(new Color(0xDD, 0xDD, 0xDD));
        p.setRangeGridlinePaint(new Color(0xDD, 0xDD, 0xDD));
        p.addRangeMarker(new ValueMarker(0, Color.GRAY, new BasicStroke(1f)));
        if (!Double.isNaN(markX)) {
            p.addDomainMarker(new ValueMarker(markX, Color.RED, new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f,
                    new float[] {4f, 4f}, 0f)));
        }
        JFreeChart chart = new JFreeChart(name, JFreeChart.DEFAULT_TITLE_FONT, p, true);
        chart.setBackgroundPaint(Color.WHITE);
        return save(chart, dir, name, 760, 460);
    }

    /** One colour per policy, the same in every figure (Okabe-Ito). */
    static Color colorFor(String name) {
        return switch (name) {
            case "no failure" -> COLORS[0];
            case "stop-and-restart" -> COLORS[1];
            case "fixed-checkpointing" -> COLORS[2];
            case "lumen" -> COLORS[3];
            case "lumen-dual" -> COLORS[4];
            default -> COLORS[5 + Math.floorMod(name.hashCode(), 2)];
        };
    }

    private static XYPlot panel(XYSeriesCollection data, String label, double[] failAtMs, int lines) {
        XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, false);
        for (int i = 0; i < lines; i++) {
            r.setSeriesPaint(i, colorFor(String.valueOf(data.getSeriesKey(i))));
            r.setSeriesStroke(i, new BasicStroke(1.6f));
        }
        NumberAxis y = new NumberAxis(label);
        y.setAutoRangeIncludesZero(true);
        XYPlot p = new XYPlot(data, null, y, r);
        p.setBackgroundPaint(Color.WHITE);
        p.setDomainGridlinePaint(new Color(0xDD, 0xDD, 0xDD));
        p.setRangeGridlinePaint(new Color(0xDD, 0xDD, 0xDD));
        for (double at : failAtMs) {
            ValueMarker m = new ValueMarker(at / 1000, Color.RED, new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f,
                    new float[] {4f, 4f}, 0f));
            p.addDomainMarker(m);
        }
        return p;
    }

    private static List<Path> save(JFreeChart chart, Path dir, String name, int w, int h) throws IOException {
        Files.createDirectories(dir);
        Path png = dir.resolve(name + ".png");
        Path svg = dir.resolve(name + ".svg");
        Path tmp = dir.resolve(name + ".png.tmp");
        ChartUtils.saveChartAsPNG(tmp.toFile(), chart, w, h);
        Files.move(tmp, png, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        SVGGraphics2D g = new SVGGraphics2D(w, h);
        chart.draw(g, new Rectangle(0, 0, w, h));
        lumen.spec.io.AtomicFiles.writeString(svg, g.getSVGDocument());
        return List.of(png, svg);
    }

    /**
     * For a sweep of two keys: one heat-map per policy of the mean TTFT in the failure-impact
     * window (seconds), the first key across, the second up; each cell is labelled with its value.
     */
    public static List<Path> heatmaps(List<lumen.sim.SimConfig.Experiment> exps, Map<Integer, List<SimMetrics.Summary>> tables, Path dir)
            throws IOException {
        String ax = exps.get(0).axes().get(0);
        String ay = exps.get(0).axes().get(1);
        List<String> xs = new ArrayList<>();
        List<String> ys = new ArrayList<>();
        for (lumen.sim.SimConfig.Experiment e : exps) {
            if (!xs.contains(e.values().get(ax))) {
                xs.add(e.values().get(ax));
            }
            if (!ys.contains(e.values().get(ay))) {
                ys.add(e.values().get(ay));
            }
        }
        List<Path> files = new ArrayList<>();
        List<SimMetrics.Summary> first = tables.values().iterator().next();
        for (int k = 1; k < first.size(); k++) {
            String policy = first.get(k).policy();
            org.jfree.data.xy.DefaultXYZDataset data = new org.jfree.data.xy.DefaultXYZDataset();
            int n = exps.size();
            double[][] xyz = new double[3][n];
            double lo = Double.POSITIVE_INFINITY;
            double hi = Double.NEGATIVE_INFINITY;
            for (Map.Entry<Integer, List<SimMetrics.Summary>> t : tables.entrySet()) {
                lumen.sim.SimConfig.Experiment e = exps.get(t.getKey());
                double v = t.getValue().get(k).ttftAll().mean() / 1000;
                xyz[0][t.getKey()] = xs.indexOf(e.values().get(ax));
                xyz[1][t.getKey()] = ys.indexOf(e.values().get(ay));
                xyz[2][t.getKey()] = v;
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
            data.addSeries(policy, xyz);
            org.jfree.chart.renderer.xy.XYBlockRenderer r = new org.jfree.chart.renderer.xy.XYBlockRenderer();
            org.jfree.chart.renderer.LookupPaintScale scale = new org.jfree.chart.renderer.LookupPaintScale(lo, hi + 1e-9, Color.WHITE);
            for (int i = 0; i <= 10; i++) {
                float f = i / 10f;
                scale.add(lo + (hi - lo) * f, new Color(1f, 1f - 0.75f * f, 1f - 0.95f * f));
            }
            r.setPaintScale(scale);
            r.setDefaultItemLabelGenerator((dataset, series, item) -> String.format(java.util.Locale.ROOT, "%.2f",
                    ((org.jfree.data.xy.XYZDataset) dataset).getZValue(series, item)));
            r.setDefaultItemLabelsVisible(true);
            XYPlot plot = new XYPlot(data, new org.jfree.chart.axis.SymbolAxis(ax, xs.toArray(new String[0])),
                    new org.jfree.chart.axis.SymbolAxis(ay, ys.toArray(new String[0])), r);
            plot.setBackgroundPaint(Color.WHITE);
            JFreeChart chart = new JFreeChart(policy + ": mean TTFT in the failure-impact window (s)", JFreeChart.DEFAULT_TITLE_FONT, plot, false);
            chart.setBackgroundPaint(Color.WHITE);
            files.addAll(save(chart, dir, "heatmap-" + policy, 700, 500));
        }
        return files;
    }

    /** A map keeping insertion order, for legend order. */
    public static <V> Map<String, V> ordered() {
        return new LinkedHashMap<>();
    }

    /** The requests of a run whose (replay) first token falls in the summary's failure-impact window. */
    public static List<SimResult.Req> inWindow(SimResult r, SimMetrics.Summary s) {
        List<SimResult.Req> out = new ArrayList<>();
        for (SimResult.Req q : r.requests) {
            double first = q.interrupted ? q.replayFirstMs : q.firstMs;
            if (Double.isNaN(s.failAtMs()) || first >= s.failAtMs() && first < s.failAtMs() + s.windowMs()) {
                out.add(q);
            }
        }
        return out;
    }
}
