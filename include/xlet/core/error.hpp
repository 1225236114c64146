// xlet::error: what run-time checks throw (dynamic indices, replica ids, data-dependent rules).
#pragma once
#include <stdexcept>
#include <string>

namespace xlet {

// The message always starts with "xlet::<op>: " so a user can tell which op failed.
class error : public std::runtime_error {
public:
    error(const std::string& op, const std::string& reason)
        : std::runtime_error("xlet::" + op + ": " + reason) {}
};

} // namespace xlet
