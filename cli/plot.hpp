// Output helpers of the CLI: image grids as PGM, the tracking figure (Desjardins et al. 2011, Figs. 3-4 style) and
// plain curves and stacked panels of series against steps (the pruning figure) as SVG.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "zeta/base/model_file.hpp"
#include "zeta/base/numerics.hpp"

namespace zeta {

// Rows of v (values in [0, 1]) as width×height tiles in a near-square grid with 1-pixel gaps; binary PGM (P5).
inline Bytes image_grid_pgm(const MatrixD& v, int width, int height) {
  const int n = static_cast<int>(v.rows());
  const int cols = static_cast<int>(std::ceil(std::sqrt(double(n))));
  const int rows = (n + cols - 1) / cols;
  const int W = cols * (width + 1) + 1;
  const int H = rows * (height + 1) + 1;
  std::vector<unsigned char> pixels(static_cast<std::size_t>(W) * H, 128);
  for (int k = 0; k < n; ++k) {
    const int x0 = (k % cols) * (width + 1) + 1;
    const int y0 = (k / cols) * (height + 1) + 1;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const double value = std::clamp(v(k, y * width + x), 0.0, 1.0);
        pixels[static_cast<std::size_t>(y0 + y) * W + (x0 + x)] = static_cast<unsigned char>(std::lround(255 * value));
      }
  }
  const std::string header = "P5\n" + std::to_string(W) + " " + std::to_string(H) + "\n255\n";
  Bytes out(header.begin(), header.end());
  out.insert(out.end(), pixels.begin(), pixels.end());
  return out;
}

// Tracked log Z with its ±2σ band against exact or AIS checkpoints (AIS with ±3σ bars), and the held-out
// log-likelihood on a second panel with the early-stopping point marked.
class TrackPlot {
 public:
  // settled / settled_sd: NaN where the checkpoint has no settled estimate (zeta track --settle).
  void add(double update, double tracked, double sd, double check, double check_sd, double valid_ll, double settled,
           double settled_sd) {
    points_.push_back({update, tracked, sd, check, check_sd, valid_ll, settled, settled_sd});
  }
  void mark_best(double update) { best_ = update; }

  std::string render(const std::string& check_label) const {
    std::string svg =
        "<svg xmlns='http://www.w3.org/2000/svg' width='800' height='640' font-family='sans-serif' "
        "font-size='12'>\n<rect width='800' height='640' fill='white'/>\n";
    if (points_.empty()) return svg + "</svg>\n";
    bool any_settled = false;
    for (const Point& p : points_) any_settled = any_settled || std::isfinite(p.settled);
    panel(svg, 30,
          "log Z: tracked (blue, ±2σ band)" + std::string(any_settled ? ", settled (orange, ±2σ)" : "") + " vs " +
              check_label + " (black, ±3σ)",
          true);
    panel(svg, 340, "held-out mean log-likelihood (tracked)", false);
    return svg + "</svg>\n";
  }

 private:
  struct Point {
    double update, tracked, sd, check, check_sd, valid, settled, settled_sd;
  };

  void panel(std::string& svg, double top, const std::string& title, bool log_z) const {
    const double left = 80, right = 770, height = 250, bottom = top + height;
    double x_max = points_.back().update, y_min = 1e300, y_max = -1e300;
    for (const Point& p : points_) {
      const double lo = log_z ? p.tracked - 2 * p.sd : p.valid;
      const double hi = log_z ? p.tracked + 2 * p.sd : p.valid;
      y_min = std::min(y_min, lo);
      y_max = std::max(y_max, hi);
      if (log_z && std::isfinite(p.check)) {
        y_min = std::min(y_min, p.check - 3 * p.check_sd);
        y_max = std::max(y_max, p.check + 3 * p.check_sd);
      }
      if (log_z && std::isfinite(p.settled)) {
        y_min = std::min(y_min, p.settled - 2 * p.settled_sd);
        y_max = std::max(y_max, p.settled + 2 * p.settled_sd);
      }
    }
    if (!(y_max > y_min)) y_max = y_min + 1.0;
    const double pad = 0.05 * (y_max - y_min);
    y_min -= pad;
    y_max += pad;
    auto X = [&](double u) { return left + (right - left) * u / std::max(x_max, 1.0); };
    auto Y = [&](double y) { return bottom - height * (y - y_min) / (y_max - y_min); };
    char b[512];
    std::snprintf(b, sizeof b,
                  "<text x='%g' y='%g' font-size='14'>%s</text>\n<rect x='%g' y='%g' width='%g' height='%g' "
                  "fill='none' stroke='#444'/>\n",
                  left, top - 8, title.c_str(), left, top, right - left, height);
    svg += b;
    for (int k = 0; k <= 5; ++k) {  // ticks
      const double y = y_min + (y_max - y_min) * k / 5.0, u = x_max * k / 5.0;
      std::snprintf(b, sizeof b,
                    "<text x='%g' y='%g' text-anchor='end'>%.2f</text><line x1='%g' x2='%g' y1='%g' y2='%g' "
                    "stroke='#ddd'/>\n<text x='%g' y='%g' text-anchor='middle'>%.0f</text>\n",
                    left - 4, Y(y) + 4, y, left, right, Y(y), Y(y), X(u), bottom + 16, u);
      svg += b;
    }
    std::string band_up, band_down, line;
    for (const Point& p : points_) {
      const double y = log_z ? p.tracked : p.valid;
      std::snprintf(b, sizeof b, "%g,%g ", X(p.update), Y(y));
      line += b;
      if (log_z) {
        std::snprintf(b, sizeof b, "%g,%g ", X(p.update), Y(p.tracked + 2 * p.sd));
        band_up += b;
        std::snprintf(b, sizeof b, "%g,%g ", X(p.update), Y(p.tracked - 2 * p.sd));
        band_down = std::string(b) + band_down;
      }
    }
    if (log_z) svg += "<polygon fill='#9ecae1' opacity='0.6' points='" + band_up + band_down + "'/>\n";
    svg += "<polyline fill='none' stroke='#08519c' stroke-width='1.5' points='" + line + "'/>\n";
    if (log_z)
      for (const Point& p : points_) {
        if (!std::isfinite(p.check)) continue;
        std::snprintf(b, sizeof b, "<circle cx='%g' cy='%g' r='2.5'/>\n", X(p.update), Y(p.check));
        svg += b;
        if (p.check_sd > 0) {
          std::snprintf(b, sizeof b, "<line x1='%g' x2='%g' y1='%g' y2='%g' stroke='black'/>\n", X(p.update),
                        X(p.update), Y(p.check - 3 * p.check_sd), Y(p.check + 3 * p.check_sd));
          svg += b;
        }
      }
    if (log_z)
      for (const Point& p : points_) {
        if (!std::isfinite(p.settled)) continue;
        std::snprintf(b, sizeof b,
                      "<line x1='%g' x2='%g' y1='%g' y2='%g' stroke='#e6550d'/><rect x='%g' y='%g' width='5' "
                      "height='5' fill='#e6550d'/>\n",
                      X(p.update) + 4, X(p.update) + 4, Y(p.settled - 2 * p.settled_sd),
                      Y(p.settled + 2 * p.settled_sd), X(p.update) + 1.5, Y(p.settled) - 2.5);
        svg += b;
      }
    if (!log_z && best_ >= 0) {
      // The label goes on the side of the marker with room for it (the best update is often near the end).
      const bool label_left = X(best_) > (left + right) / 2;
      std::snprintf(b, sizeof b,
                    "<line x1='%g' x2='%g' y1='%g' y2='%g' stroke='#d62728' stroke-dasharray='4 3'/>"
                    "<text x='%g' y='%g' fill='#d62728' text-anchor='%s'>best (early stopping)</text>\n",
                    X(best_), X(best_), top, bottom, label_left ? X(best_) - 4 : X(best_) + 4, top + 14,
                    label_left ? "end" : "start");
      svg += b;
    }
    std::snprintf(b, sizeof b, "<text x='%g' y='%g' text-anchor='middle'>parameter updates</text>\n",
                  (left + right) / 2, bottom + 32);
    svg += b;
  }

  std::vector<Point> points_;
  double best_ = -1;
};

// Curves on one panel as SVG: each series a polyline of (x, y) points with an optional ± band (half-width 0: no
// band), labelled axes, and a legend below the panel. Non-finite points are left out.
class CurvePlot {
 public:
  CurvePlot(std::string title, std::string x_label, std::string y_label)
      : title_(std::move(title)), x_label_(std::move(x_label)), y_label_(std::move(y_label)) {}

  // Adds a series and returns its index; colour is any SVG colour.
  int add_series(const std::string& name, const std::string& colour) {
    series_.push_back({name, colour, {}});
    return static_cast<int>(series_.size()) - 1;
  }
  void add(int series, double x, double y, double half_width = 0.0) {
    if (std::isfinite(x) && std::isfinite(y))
      series_[static_cast<std::size_t>(series)].points.push_back({x, y, half_width});
  }

  std::string render() const {
    const double left = 80, right = 770, top = 40, height = 300, bottom = top + height;
    const int svg_height = static_cast<int>(bottom) + 60 + 16 * static_cast<int>(series_.size());
    char b[512];
    std::snprintf(b, sizeof b,
                  "<svg xmlns='http://www.w3.org/2000/svg' width='800' height='%d' font-family='sans-serif' "
                  "font-size='12'>\n<rect width='800' height='%d' fill='white'/>\n",
                  svg_height, svg_height);
    std::string svg = b;
    double x_min = 1e300, x_max = -1e300, y_min = 1e300, y_max = -1e300;
    for (const Series& s : series_)
      for (const Point& p : s.points) {
        x_min = std::min(x_min, p.x);
        x_max = std::max(x_max, p.x);
        y_min = std::min(y_min, p.y - p.half_width);
        y_max = std::max(y_max, p.y + p.half_width);
      }
    if (x_min > x_max) return svg + "</svg>\n";
    if (!(x_max > x_min)) x_max = x_min + 1.0;
    if (!(y_max > y_min)) y_max = y_min + 1.0;
    const double pad = 0.05 * (y_max - y_min);
    y_min -= pad;
    y_max += pad;
    auto X = [&](double x) { return left + (right - left) * (x - x_min) / (x_max - x_min); };
    auto Y = [&](double y) { return bottom - height * (y - y_min) / (y_max - y_min); };
    std::snprintf(b, sizeof b,
                  "<text x='%g' y='%g' font-size='14'>%s</text>\n<rect x='%g' y='%g' width='%g' height='%g' "
                  "fill='none' stroke='#444'/>\n",
                  left, top - 12, title_.c_str(), left, top, right - left, height);
    svg += b;
    for (int k = 0; k <= 5; ++k) {
      const double y = y_min + (y_max - y_min) * k / 5.0, x = x_min + (x_max - x_min) * k / 5.0;
      std::snprintf(b, sizeof b,
                    "<text x='%g' y='%g' text-anchor='end'>%.2f</text><line x1='%g' x2='%g' y1='%g' y2='%g' "
                    "stroke='#ddd'/>\n<text x='%g' y='%g' text-anchor='middle'>%g</text>\n",
                    left - 4, Y(y) + 4, y, left, right, Y(y), Y(y), X(x), bottom + 16, x);
      svg += b;
    }
    for (std::size_t i = 0; i < series_.size(); ++i) {
      const Series& s = series_[i];
      std::string line, up, down;
      bool band = false;
      for (const Point& p : s.points) {
        std::snprintf(b, sizeof b, "%g,%g ", X(p.x), Y(p.y));
        line += b;
        std::snprintf(b, sizeof b, "%g,%g ", X(p.x), Y(p.y + p.half_width));
        up += b;
        std::snprintf(b, sizeof b, "%g,%g ", X(p.x), Y(p.y - p.half_width));
        down = std::string(b) + down;
        band = band || p.half_width > 0;
      }
      if (band) svg += "<polygon fill='" + s.colour + "' opacity='0.25' points='" + up + down + "'/>\n";
      svg += "<polyline fill='none' stroke='" + s.colour + "' stroke-width='1.5' points='" + line + "'/>\n";
      for (const Point& p : s.points) {
        std::snprintf(b, sizeof b, "<circle cx='%g' cy='%g' r='2' fill='%s'/>\n", X(p.x), Y(p.y), s.colour.c_str());
        svg += b;
      }
      const double ly = bottom + 56 + 16 * static_cast<double>(i);
      std::snprintf(
          b, sizeof b,
          "<line x1='%g' x2='%g' y1='%g' y2='%g' stroke='%s' stroke-width='2'/><text x='%g' y='%g'>%s</text>\n", left,
          left + 20, ly, ly, s.colour.c_str(), left + 26, ly + 4, s.name.c_str());
      svg += b;
    }
    std::snprintf(b, sizeof b,
                  "<text x='%g' y='%g' text-anchor='middle'>%s</text>\n<text x='16' y='%g' text-anchor='middle' "
                  "transform='rotate(-90 16 %g)'>%s</text>\n",
                  (left + right) / 2, bottom + 34, x_label_.c_str(), (top + bottom) / 2, (top + bottom) / 2,
                  y_label_.c_str());
    return svg + b + "</svg>\n";
  }

 private:
  struct Point {
    double x, y, half_width;
  };
  struct Series {
    std::string name, colour;
    std::vector<Point> points;
  };
  std::string title_, x_label_, y_label_;
  std::vector<Series> series_;
};

// Panels stacked over one shared x axis (zeta prune: hidden units, KL or tracked log-likelihood, the smallest
// removal cost), each a line with an optional ±band, and the steps of events (removals) marked on every panel.
class StepPanels {
 public:
  struct Panel {
    std::string title;
    std::vector<double> x, y, band;  // band: the half-width drawn around y (empty: none; NaN where unknown)
    bool zero_line = false;          // a dashed line at y = 0
    bool from_zero = false;          // the y axis starts at 0 (or below)
  };

  void add(Panel panel) { panels_.push_back(std::move(panel)); }
  void mark(double x) { marks_.push_back(x); }

  std::string render(const std::string& x_label) const {
    const double panel_height = 170, gap = 50;
    const double total = 30 + static_cast<double>(panels_.size()) * (panel_height + gap) + 10;
    char b[640];
    std::snprintf(b, sizeof b,
                  "<svg xmlns='http://www.w3.org/2000/svg' width='800' height='%g' font-family='sans-serif' "
                  "font-size='12'>\n<rect width='800' height='%g' fill='white'/>\n",
                  total, total);
    std::string svg = b;
    double x_max = 1.0;
    for (const Panel& p : panels_)
      for (double x : p.x) x_max = std::max(x_max, x);
    double top = 30;
    for (const Panel& p : panels_) {
      draw(svg, p, top, panel_height, x_max);
      top += panel_height + gap;
    }
    std::snprintf(b, sizeof b, "<text x='425' y='%g' text-anchor='middle'>%s</text>\n", top - gap + 32,
                  escaped(x_label).c_str());
    return svg + b + "</svg>\n";
  }

 private:
  static std::string escaped(const std::string& text) {
    std::string out;
    for (char ch : text) {
      if (ch == '<')
        out += "&lt;";
      else if (ch == '>')
        out += "&gt;";
      else if (ch == '&')
        out += "&amp;";
      else
        out += ch;
    }
    return out;
  }

  void draw(std::string& svg, const Panel& p, double top, double height, double x_max) const {
    const double left = 80, right = 770, bottom = top + height;
    double y_min = 1e300, y_max = -1e300;
    for (std::size_t i = 0; i < p.y.size(); ++i) {
      if (!std::isfinite(p.y[i])) continue;
      const double w = i < p.band.size() && std::isfinite(p.band[i]) ? p.band[i] : 0.0;
      y_min = std::min(y_min, p.y[i] - w);
      y_max = std::max(y_max, p.y[i] + w);
    }
    if (p.zero_line || p.from_zero) {
      y_min = std::min(y_min, 0.0);
      y_max = std::max(y_max, 0.0);
    }
    if (!(y_max >= y_min)) {  // nothing finite to draw
      y_min = 0.0;
      y_max = 1.0;
    }
    if (!(y_max > y_min)) y_max = y_min + 1.0;
    const double pad = 0.05 * (y_max - y_min);
    y_min = p.from_zero && y_min >= 0.0 ? 0.0 : y_min - pad;  // counts start at the axis
    y_max += pad;
    auto X = [&](double x) { return left + (right - left) * x / x_max; };
    auto Y = [&](double y) { return bottom - height * (y - y_min) / (y_max - y_min); };
    char b[512];
    std::snprintf(b, sizeof b,
                  "<text x='%g' y='%g' font-size='14'>%s</text>\n<rect x='%g' y='%g' width='%g' height='%g' "
                  "fill='none' stroke='#444'/>\n",
                  left, top - 8, escaped(p.title).c_str(), left, top, right - left, height);
    svg += b;
    for (int k = 0; k <= 4; ++k) {
      const double y = y_min + (y_max - y_min) * k / 4.0, x = x_max * k / 4.0;
      std::snprintf(b, sizeof b,
                    "<text x='%g' y='%g' text-anchor='end'>%.4g</text><line x1='%g' x2='%g' y1='%g' y2='%g' "
                    "stroke='#ddd'/>\n<text x='%g' y='%g' text-anchor='middle'>%.0f</text>\n",
                    left - 4, Y(y) + 4, y, left, right, Y(y), Y(y), X(x), bottom + 16, x);
      svg += b;
    }
    for (double x : marks_) {
      std::snprintf(b, sizeof b, "<line x1='%g' x2='%g' y1='%g' y2='%g' stroke='#d62728' stroke-opacity='0.5'/>\n",
                    X(x), X(x), top, bottom);
      svg += b;
    }
    if (p.zero_line) {
      std::snprintf(b, sizeof b, "<line x1='%g' x2='%g' y1='%g' y2='%g' stroke='#444' stroke-dasharray='4 3'/>\n", left,
                    right, Y(0.0), Y(0.0));
      svg += b;
    }
    std::string up, down, line;
    for (std::size_t i = 0; i < p.y.size(); ++i) {
      if (!std::isfinite(p.y[i])) continue;
      std::snprintf(b, sizeof b, "%g,%g ", X(p.x[i]), Y(p.y[i]));
      line += b;
      if (i < p.band.size() && std::isfinite(p.band[i])) {
        std::snprintf(b, sizeof b, "%g,%g ", X(p.x[i]), Y(p.y[i] + p.band[i]));
        up += b;
        std::snprintf(b, sizeof b, "%g,%g ", X(p.x[i]), Y(p.y[i] - p.band[i]));
        down = std::string(b) + down;
      }
    }
    if (!up.empty()) svg += "<polygon fill='#9ecae1' opacity='0.6' points='" + up + down + "'/>\n";
    svg += "<polyline fill='none' stroke='#08519c' stroke-width='1.5' points='" + line + "'/>\n";
  }

  std::vector<Panel> panels_;
  std::vector<double> marks_;
};

}  // namespace zeta
