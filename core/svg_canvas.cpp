#include "core/svg_canvas.h"

#include <fstream>

#include <fmt/format.h>

#include "core/error.h"

namespace nee {

namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

SvgCanvas::SvgCanvas(double width, double height) : width_(width), height_(height) {}

void SvgCanvas::line(double x1, double y1, double x2, double y2, const std::string& stroke, double stroke_width,
                     bool dashed) {
  body_ += fmt::format(R"svg(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{}"{}/>)svg" "\n",
                       x1, y1, x2, y2, stroke, stroke_width, dashed ? R"( stroke-dasharray="4")" : "");
}

void SvgCanvas::polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
                         double stroke_width) {
  if (points.empty()) return;
  std::string coords;
  for (const auto& [x, y] : points) coords += fmt::format("{:.1f},{:.1f} ", x, y);
  coords.pop_back();
  body_ += fmt::format(R"svg(<polyline fill="none" stroke="{}" stroke-width="{}" points="{}"/>)svg" "\n", stroke,
                       stroke_width, coords);
}

void SvgCanvas::rect(double x, double y, double w, double h, const std::string& fill, const std::string& stroke) {
  body_ += fmt::format(R"svg(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" stroke="{}"/>)svg" "\n",
                       x, y, w, h, fill, stroke);
}

void SvgCanvas::circle(double cx, double cy, double r, const std::string& fill) {
  body_ += fmt::format(R"svg(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" fill="{}"/>)svg" "\n", cx, cy, r, fill);
}

void SvgCanvas::text(double x, double y, const std::string& content, double size, const std::string& anchor,
                     const std::string& fill, double rotate) {
  const std::string transform =
      rotate == 0 ? "" : fmt::format(R"t( transform="rotate({} {:.1f} {:.1f})")t", rotate, x, y);
  body_ += fmt::format(R"svg(<text x="{:.1f}" y="{:.1f}" font-size="{}" text-anchor="{}" fill="{}"{}>{}</text>)svg" "\n",
                       x, y, size, anchor, fill, transform, escape(content));
}

std::string SvgCanvas::str() const {
  return fmt::format(R"svg(<svg xmlns="http://www.w3.org/2000/svg" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" font-family="sans-serif">)svg" "\n"
                     R"svg(<rect width="100%" height="100%" fill="white"/>)svg" "\n",
                     width_, height_) +
         body_ + "</svg>\n";
}

void SvgCanvas::write(const std::string& path) const {
  std::ofstream out(path);
  out << str();
  out.close();
  if (!out) throw Error("cannot write " + path);
}

const std::string& series_color(size_t index) {
  static const std::string colors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return colors[index % std::size(colors)];
}

}  // namespace nee
