// fmt's out-of-line definitions, for programs linked without libfmt.so (CMakeLists.txt
// says which). Compiled without FMT_HEADER_ONLY, fmt's format-inl.h defines its
// functions out of line; the templates that fmt/format.h declares extern (and those its
// inline code calls but leaves undefined) are instantiated here for the types the shared
// library instantiates them for.
#include <fmt/format-inl.h>

#include <locale>

namespace fmt {
inline namespace v9 {
namespace detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template auto decimal_point_impl(locale_ref) -> char;
template auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
}  // namespace v9
}  // namespace fmt
