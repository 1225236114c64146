// xlet::error: what run-time checks throw (dynamic indices, replica ids, data-dependent rules).
#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <type_traits>

namespace xlet {
namespace detail {

// An error message written from its parts (strings, integers, characters) into one buffer. Why not
// std::string concatenation: every translation unit that can throw would compile std::string's
// append, mutate and to_string code (~0.1 s of a small program's 1 s with GCC 12 -O2); this is a
// few lines, and std::runtime_error's const char* constructor lives in the library.
class error_message {
public:
    template<class... P>
    explicit error_message(const P&... parts) {
        std::size_t n = 1;
        ((n += length(parts)), ...);
        char* o = n <= sizeof(small_) ? small_ : (heap_ = static_cast<char*>(std::malloc(n)));
        if (!o) { // out of memory: the parts that fit the small buffer
            o = small_;
            n = sizeof(small_);
        }
        char* const end = o + n - 1;
        ((o = put(o, end, parts)), ...);
        *o = '\0';
    }
    error_message(const error_message&) = delete;
    error_message& operator=(const error_message&) = delete;
    ~error_message() { std::free(heap_); }
    const char* c_str() const noexcept { return heap_ ? heap_ : small_; }

private:
    // A part as text: string literals and const char*, std::string_view and std::string (what has
    // data() and size()); else a character or an integer. (No std::is_convertible to string_view:
    // its range constructor's concepts cost more to check than this whole class.)
    template<class P>
    static std::string_view text(const P& p) noexcept {
        if constexpr (std::is_array_v<P> || std::is_pointer_v<P>)
            return std::string_view(p, std::strlen(p));
        else
            return std::string_view(p.data(), p.size());
    }
    template<class P>
    static constexpr bool is_text = std::is_array_v<P> || std::is_pointer_v<P> || requires(const P& p) {
        std::string_view(p.data(), p.size());
    };

    template<class P>
    static std::size_t length(const P& p) noexcept {
        if constexpr (is_text<P>) {
            return text(p).size();
        } else if constexpr (std::is_same_v<P, char>) {
            return 1;
        } else {
            static_assert(std::is_integral_v<P> && !std::is_same_v<P, bool>,
                          "xlet::error: a message part is text, a char or an integer");
            return 20 + (std::is_signed_v<P> ? 1 : 0);
        }
    }
    template<class P>
    static char* put(char* o, char* end, const P& p) noexcept {
        if constexpr (is_text<P>) {
            const std::string_view s = text(p);
            const auto room = static_cast<std::size_t>(end - o);
            const std::size_t k = s.size() < room ? s.size() : room;
            if (k) std::memcpy(o, s.data(), k);
            return o + k;
        } else if constexpr (std::is_same_v<P, char>) {
            if (o < end) *o++ = p;
            return o;
        } else {
            char digits[24];
            char* d = digits + sizeof(digits);
            bool negative = false;
            if constexpr (std::is_signed_v<P>) negative = p < 0;
            unsigned long long v = static_cast<unsigned long long>(p);
            if (negative) v = 0ull - v; // the magnitude, also of the most negative value
            do
                *--d = static_cast<char>('0' + v % 10);
            while (v /= 10);
            if (negative) *--d = '-';
            return put(o, end, std::string_view(d, static_cast<std::size_t>(digits + sizeof(digits) - d)));
        }
    }

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
        : std::runtime_error(detail::error_message("xlet::", op, ": ", reason...).c_str()) {}
};

} // namespace xlet
