// owner<T>: the one owning pointer of xlet's own objects (a transport's pending operation, a
// feed's large item, the pool's arena, the recorder's state). What std::unique_ptr does for
// them, without its cost to every translation unit: each distinct std::unique_ptr<T> a header
// names outside a template is instantiated wherever the header is included (about 5 ms of GCC
// 12 or Clang 14 each, measured), and these are named by the umbrella header's classes.
#pragma once
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace xlet::detail {

template<class U, class T>
concept owned_as = std::is_convertible_v<U*, T*>; // an owner<U> converts to an owner<T>

template<class T>
class owner {
public:
    owner() noexcept = default;
    owner(std::nullptr_t) noexcept {}
    explicit owner(T* p) noexcept : p_(p) {}
    owner(owner&& o) noexcept : p_(o.release()) {}
    template<owned_as<T> U>
    owner(owner<U>&& o) noexcept : p_(o.release()) {}
    template<owned_as<T> U>
    owner(std::unique_ptr<U>&& u) noexcept : p_(u.release()) {}
    owner& operator=(owner&& o) noexcept {
        reset(o.release());
        return *this;
    }
    owner(const owner&) = delete;
    owner& operator=(const owner&) = delete;
    ~owner() { delete p_; }

    T* get() const noexcept { return p_; }
    T& operator*() const noexcept { return *p_; }
    T* operator->() const noexcept { return p_; }
    explicit operator bool() const noexcept { return p_ != nullptr; }
    T* release() noexcept { return std::exchange(p_, nullptr); }
    void reset(T* p = nullptr) noexcept { delete std::exchange(p_, p); }

private:
    T* p_ = nullptr;
};

template<class T, class... A>
owner<T> make_owner(A&&... a) {
    return owner<T>(new T(std::forward<A>(a)...));
}

} // namespace xlet::detail
