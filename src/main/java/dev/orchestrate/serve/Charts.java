package dev.orchestrate.serve;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * Line charts drawn as SVG on the server: no script and no library in the browser. A chart of a
 * bounded structure shades its pressure bands (70, 85 and 95 % of the limit) and draws the limit.
 */
final class Charts {
  static final int WIDTH = 560;
  static final int HEIGHT = 160;
  private static final int LEFT = 56;
  private static final int RIGHT = 8;
  private static final int TOP = 8;
  private static final int BOTTOM = 22;
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("MM-dd HH:mm", Locale.ROOT)
      .withZone(ZoneOffset.UTC);

  private Charts() {
  }

  /** One point of a series. */
  record Point(Instant at, long value) {
  }

  /**
   * @param limit the structure's row limit, or null: then no limit line and no bands
   */
  static String line(String label, List<Point> points, Long limit) {
    long max = limit != null ? limit : 1;
    for (Point p : points) {
      max = Math.max(max, p.value());
    }
    max = Math.max(1, (long) Math.ceil(max * 1.05));
    long from = points.isEmpty() ? 0 : points.get(0).at().toEpochMilli();
    long to = points.isEmpty() ? 1 : points.get(points.size() - 1).at().toEpochMilli();
    long span = Math.max(1, to - from);
    int plotW = WIDTH - LEFT - RIGHT;
    int plotH = HEIGHT - TOP - BOTTOM;
    StringBuilder svg = new StringBuilder(1024 + points.size() * 16);
    svg.append("<svg class=\"chart\" role=\"img\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
        .append("\" width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT).append("\" aria-label=\"")
        .append(Html.esc(label)).append("\"><title>").append(Html.esc(label)).append("</title>");
    svg.append("<rect class=\"plot\" x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"")
        .append(plotW).append("\" height=\"").append(plotH).append("\"/>");
    if (limit != null && limit > 0) {
      band(svg, "band-elevated", 0.70, 0.85, limit, max, plotW, plotH);
      band(svg, "band-high", 0.85, 0.95, limit, max, plotW, plotH);
      band(svg, "band-critical", 0.95, 1.0, limit, max, plotW, plotH);
      double y = y(limit, max, plotH);
      svg.append("<line class=\"limit\" x1=\"").append(LEFT).append("\" x2=\"").append(LEFT + plotW)
          .append("\" y1=\"").append(fmt(y)).append("\" y2=\"").append(fmt(y)).append("\"/>");
      svg.append("<text class=\"limit-label\" x=\"").append(LEFT + plotW - 4).append("\" y=\"").append(fmt(y - 3))
          .append("\" text-anchor=\"end\">limit ").append(limit).append("</text>");
    }
    svg.append("<text class=\"axis\" x=\"").append(LEFT - 4).append("\" y=\"").append(TOP + 10)
        .append("\" text-anchor=\"end\">").append(Html.esc(compact(max))).append("</text>");
    svg.append("<text class=\"axis\" x=\"").append(LEFT - 4).append("\" y=\"").append(TOP + plotH)
        .append("\" text-anchor=\"end\">0</text>");
    if (points.isEmpty()) {
      svg.append("<text class=\"axis\" x=\"").append(LEFT + plotW / 2).append("\" y=\"").append(TOP + plotH / 2)
          .append("\" text-anchor=\"middle\">no samples yet</text>");
    } else {
      svg.append("<text class=\"axis\" x=\"").append(LEFT).append("\" y=\"").append(HEIGHT - 6).append("\">")
          .append(TIME.format(points.get(0).at())).append("</text>");
      svg.append("<text class=\"axis\" x=\"").append(LEFT + plotW).append("\" y=\"").append(HEIGHT - 6)
          .append("\" text-anchor=\"end\">").append(TIME.format(points.get(points.size() - 1).at())).append("</text>");
      svg.append("<polyline class=\"series\" points=\"");
      for (Point p : points) {
        double x = LEFT + (points.size() == 1 ? plotW : (p.at().toEpochMilli() - from) * (double) plotW / span);
        svg.append(fmt(x)).append(',').append(fmt(y(p.value(), max, plotH))).append(' ');
      }
      svg.append("\"/>");
    }
    return svg.append("</svg>").toString();
  }

  private static void band(StringBuilder svg, String cls, double fromShare, double toShare, long limit, long max,
      int plotW, int plotH) {
    double top = y(limit * toShare, max, plotH);
    double bottom = y(limit * fromShare, max, plotH);
    svg.append("<rect class=\"").append(cls).append("\" x=\"").append(LEFT).append("\" y=\"").append(fmt(top))
        .append("\" width=\"").append(plotW).append("\" height=\"").append(fmt(bottom - top)).append("\"/>");
  }

  private static double y(double value, long max, int plotH) {
    return TOP + plotH - value * plotH / max;
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  static String compact(long n) {
    if (n >= 10_000_000_000L) {
      return n / 1_000_000_000 + "G";
    }
    if (n >= 10_000_000) {
      return n / 1_000_000 + "M";
    }
    if (n >= 10_000) {
      return n / 1_000 + "k";
    }
    return Long.toString(n);
  }
}
