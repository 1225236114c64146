// xlet::error: what run-time checks throw (dynamic indices, replica ids, data-dependent rules).
#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string_view>
#include <type_traits>

namespace xlet {
namespace detail {

// One part of an error message: text (string literals, const char*, std::string_view and anything
// with data() and size(), such as std::string), a character or an integer. Why not std::string
// concatenation: every translation unit that can throw would compile std::string's append, mutate
// and to_string code (~0.1 s of a small program's 1 s with GCC 12 -O2); and why not a variadic
// formatter: its functions would be compiled once per part type and position. The parts are
// written by one non-template function (error_text), and std::runtime_error's const char*
// constructor lives in the library.
struct error_part {
    const char* text = nullptr; // null: a number, or a character (is_char) in `magnitude`
    std::size_t size = 0;
    unsigned long long magnitude = 0;
    bool negative = false;
    bool is_char = false;

    error_part(const char* s) noexcept : text(s), size(std::strlen(s)) {}
    error_part(std::string_view s) noexcept : text(s.data()), size(s.size()) {}
    template<class S>
    requires requires(const S& s) { std::string_view(s.data(), s.size()); }
    error_part(const S& s) noexcept : text(s.data()), size(s.size()) {}
    error_part(char c) noexcept : magnitude(static_cast<unsigned char>(c)), is_char(true) {}
    template<class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, char>) error_part(I v)
    noexcept : magnitude(static_cast<unsigned long long>(v)) {
        if constexpr (std::is_signed_v<I>)
            if (v < 0) {
                negative = true;
                magnitude = 0ull - magnitude; // the magnitude, also of the most negative value
            }
    }
};

// "xlet::" op ": " parts..., in one buffer (the heap when it does not fit the object).
class error_text {
public:
    error_text(std::string_view op, std::initializer_list<error_part> parts) noexcept {
        std::size_t n = 6 + op.size() + 2 + 1;
        for (const auto& p : parts)
            n += p.text ? p.size : 21;
        char* o = n <= sizeof(small_) ? small_ : (heap_ = static_cast<char*>(std::malloc(n)));
        if (!o) { // out of memory: what fits the small buffer
            o = small_;
            n = sizeof(small_);
        }
        char* const end = o + n - 1;
        auto put = [&](const char* s, std::size_t k) {
            k = k < static_cast<std::size_t>(end - o) ? k : static_cast<std::size_t>(end - o);
            if (k) std::memcpy(o, s, k);
            o += k;
        };
        put("xlet::", 6);
        put(op.data(), op.size());
        put(": ", 2);
        for (const auto& p : parts) {
            if (p.text) {
                put(p.text, p.size);
            } else if (p.is_char) {
                const char c = static_cast<char>(p.magnitude);
                put(&c, 1);
            } else {
                char digits[24];
                char* d = digits + sizeof(digits);
                unsigned long long v = p.magnitude;
                do
                    *--d = static_cast<char>('0' + v % 10);
                while (v /= 10);
                if (p.negative) *--d = '-';
                put(d, static_cast<std::size_t>(digits + sizeof(digits) - d));
            }
        }
        *o = '\0';
    }
    error_text(const error_text&) = delete;
    error_text& operator=(const error_text&) = delete;
    ~error_text() { std::free(heap_); }
    const char* c_str() const noexcept { return heap_ ? heap_ : small_; }

private:
    char small_[200];
    char* heap_ = nullptr;
};

} // namespace detail

// The message always starts with "xlet::<op>: " so a user can tell which op failed; the reason is
// its parts in order (text, characters and integers: error("pad", "edge ", d, " is negative")).
class error : public std::runtime_error {
public:
    template<class... P>
    error(std::string_view op, const P&... reason)
        : std::runtime_error(detail::error_text(op, {detail::error_part(reason)...}).c_str()) {}
};

} // namespace xlet
