#pragma once
#include <string>
#include <utility>
#include <vector>

namespace nee {

// An SVG document built from a few primitives, in pixel coordinates (y grows down),
// on a white background. The one place that writes SVG markup: the tuner's convergence
// plots and the bench's charts draw through it. Text is escaped here.
class SvgCanvas {
 public:
  SvgCanvas(double width, double height);

  double width() const { return width_; }
  double height() const { return height_; }

  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width = 1,
            bool dashed = false);
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
                double stroke_width = 1.5);
  void rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke = "none");
  void circle(double cx, double cy, double r, const std::string& fill);
  // `anchor`: start, middle or end; `rotate`: degrees about (x, y).
  void text(double x, double y, const std::string& content, double size = 11, const std::string& anchor = "start",
            const std::string& fill = "black", double rotate = 0);

  // The finished document.
  std::string str() const;
  // Writes str() to `path`; throws nee::Error when it cannot.
  void write(const std::string& path) const;

 private:
  double width_, height_;
  std::string body_;
};

// Distinct series colours (Tableau 10), cycled by index.
const std::string& series_color(size_t index);

}  // namespace nee
