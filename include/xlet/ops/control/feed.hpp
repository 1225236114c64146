// Infeed and Outfeed (spec: Infeed, Outfeed) over a host-side queue, `feed_queue`:
//
//   feed_queue in, out;                        // thread-safe FIFOs of typed items
//   in.push(f32<4>{1, 2, 3, 4});               // the host feeds (any thread)
//   auto [x, t1] = infeed<f32<4>>(in, after_all());
//   token t2 = outfeed(out, x * 2.0f, t1);     // the program writes
//   f32<4> y = out.pop<f32<4>>();              // the host drains (any thread)
//
// An item is one value: a tensor, or a flat std::tuple of tensors (the spec: nested tuples are not
// supported). infeed<T>(q, token) waits until an item is there, checks that it is a T (another
// type is an xlet::error naming both, and the item stays in the queue: XLA calls a layout mismatch
// undefined), takes it and returns {value, token}. infeed<std::tuple<>> reads nothing, as the spec
// says: it returns at once, whatever the queue holds. outfeed(q, x, token) evaluates x and appends
// it; it waits only while a bounded queue (feed_queue(capacity)) is full.
// Order: each queue is a linearisable FIFO. The items a thread pushes are popped in the order it
// pushed them; the infeeds of one program run in its program order, the total order the spec asks
// for (thread tokens through them to make that order a data dependence); concurrent readers of one
// queue each take whole items. close() wakes every waiter: a waiting infeed or pop then throws an
// xlet::error (an empty queue that is closed never fills), a push throws too.
// An item small and trivially copyable (<= 64 bytes: f32[16], say) is stored inside the queue's
// node; a larger one is moved into one heap block (an rvalue tensor on the heap moves its storage:
// no copy of the elements). `config` and the spec's shape_with_layout are accepted and ignored:
// xlet is row-major only, and the configuration string is implementation-defined.
// The waits block the calling thread (a condition variable; a push into a full queue spins
// briefly first). In a replica_pool, give each device its own queue (indexed by ctx.device_id())
// and feed it from outside the pool.
//
// Rules:
//   infeed  C1  T is a tensor type or a std::tuple of tensor types (no nested tuples)
//   outfeed C1  the operand is an array expression or a std::tuple of them (no nested tuples)
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../../core/owner.hpp"
#include "computation.hpp"
#include "custom_call.hpp" // detail::type_label
#include "token.hpp"

namespace xlet {

namespace detail {

template<class T>
inline constexpr bool feed_item = is_owning_tensor<T>;
template<class... T>
inline constexpr bool feed_item<std::tuple<T...>> = (is_owning_tensor<T> && ...);

// One identity per item type, and its name for messages.
template<class T>
struct feed_tag {
    static constexpr char id = 0;
    static std::string name() { return type_label<T>(); }
};

struct feed_holder {
    virtual ~feed_holder() = default;
};
template<class T>
struct feed_holder_of final : feed_holder {
    T value;
    explicit feed_holder_of(T&& v) : value(std::move(v)) {}
};

struct feed_message {
    static constexpr std::size_t small_bytes = 64;
    const void* type = nullptr;
    std::string (*type_name)() = nullptr;
    alignas(64) unsigned char small[small_bytes]{}; // zeroed: a move copies all of it
    owner<feed_holder> big;

    template<class T>
    static constexpr bool is_small = std::is_trivially_copyable_v<T> && sizeof(T) <= small_bytes && alignof(T) <= 64;

    template<class T>
    void put(T&& v) {
        type = &feed_tag<T>::id;
        type_name = &feed_tag<T>::name;
        if constexpr (is_small<T>)
            std::memcpy(small, static_cast<const void*>(&v), sizeof(T));
        else
            big = make_owner<feed_holder_of<T>>(std::move(v));
    }
    template<class T>
    T take() {
        if constexpr (is_small<T>) {
            T v;
            std::memcpy(static_cast<void*>(&v), small, sizeof(T));
            return v;
        } else {
            return std::move(static_cast<feed_holder_of<T>*>(big.get())->value);
        }
    }
};

} // namespace detail

// A host-side, thread-safe FIFO of typed items (tensors, or flat tuples of tensors).
// (A template of nothing: compiled only in a translation unit that uses it.)
template<class = void>
class basic_feed_queue {
public:
    // capacity 0: unbounded; else push waits while `capacity` items are queued.
    explicit basic_feed_queue(std::size_t capacity = 0) : capacity_(capacity) {}
    basic_feed_queue(const basic_feed_queue&) = delete;
    basic_feed_queue& operator=(const basic_feed_queue&) = delete;

    // Append an item (an expression is evaluated first; a tuple may hold expressions).
    template<class X>
    void push(X&& x) {
        push_for("feed_queue::push", std::forward<X>(x));
    }

    // Take the next item, which must be a T; waits while the queue is empty.
    template<class T>
    T pop() {
        return pop_for<T>("feed_queue::pop");
    }
    // The next item if there is one (a T; another type throws), else nullopt. Never waits.
    template<class T>
    std::optional<T> try_pop() {
        std::unique_lock lock(m_);
        if (items_.empty()) return std::nullopt;
        return take_front<T>(lock, "feed_queue::try_pop");
    }

    // Wake every waiter; later pushes throw, pops throw once the queue is empty.
    void close() {
        {
            std::lock_guard lock(m_);
            closed_ = true;
            closed_flag_.store(true, std::memory_order_relaxed);
        }
        not_empty_.notify_all();
        not_full_.notify_all();
    }
    bool closed() const {
        std::lock_guard lock(m_);
        return closed_;
    }
    std::size_t size() const {
        std::lock_guard lock(m_);
        return items_.size();
    }
    bool empty() const { return size() == 0; }

    // push and pop with the op named in errors (outfeed and infeed call these).
    template<class X>
    void push_for(const char* op, X&& x) {
        using T = detail::materialized_t<X>;
        static_assert(diag::got<detail::feed_item<T>, T>::value,
                      "xlet::outfeed [C1]: an item must be an array expression or a std::tuple of them (no nested "
                      "tuples)");
        detail::feed_message m;
        m.put<T>(detail::materialize(std::forward<X>(x)));
        if (capacity_) spin_until([&] { return count_.load(std::memory_order_relaxed) < capacity_; });
        std::unique_lock lock(m_);
        if (capacity_) {
            ++push_waiters_;
            not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
            --push_waiters_;
        }
        if (closed_) throw error(op, "the queue is closed");
        items_.push_back(std::move(m));
        count_.store(items_.size(), std::memory_order_relaxed);
        if (pop_waiters_) not_empty_.notify_one();
    }

    template<class T>
    T pop_for(const char* op) {
        static_assert(diag::got<detail::feed_item<T>, T>::value,
                      "xlet::infeed [C1]: the item type must be a tensor type or a std::tuple of tensor types (no "
                      "nested tuples)");
        std::unique_lock lock(m_);
        ++pop_waiters_;
        not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
        --pop_waiters_;
        if (items_.empty()) throw error(op, "the queue is closed and empty");
        return take_front<T>(lock, op);
    }

private:
    // Before a push waits for room in a full bounded queue, a short spin on the item count (read
    // without the lock: only a hint, the wait re-checks under it): the consumer usually makes room
    // within microseconds, and the producer then goes on without a sleep and a futex wake-up
    // (1 MiB items, capacity 8: 0.70 -> 0.97-0.99 of TBB's queue). Pops do not spin: a spinning
    // consumer takes the lock once per item instead of draining a burst (4 B items: 2-3x slower).
    template<class Ready>
    void spin_until(Ready ready) const {
        for (int i = 0; i < 4096 && !ready(); ++i) {
            if (closed_flag_.load(std::memory_order_relaxed)) return;
#if defined(__x86_64__) || defined(__i386__)
            _mm_pause();
#endif
        }
    }

    template<class T>
    T take_front(std::unique_lock<std::mutex>& lock, const char* op) {
        detail::feed_message& m = items_.front();
        if (m.type != &detail::feed_tag<T>::id)
            throw error(op, "expected an item of type ", detail::type_label<T>(), ", the next item is ", m.type_name());
        detail::feed_message taken = std::move(m);
        items_.pop_front();
        count_.store(items_.size(), std::memory_order_relaxed);
        if (push_waiters_) not_full_.notify_one();
        lock.unlock();
        return taken.take<T>();
    }

    mutable std::mutex m_;
    std::condition_variable not_empty_, not_full_;
    std::deque<detail::feed_message> items_;
    std::size_t capacity_;
    std::size_t push_waiters_ = 0, pop_waiters_ = 0;
    bool closed_ = false;
    alignas(64) std::atomic<std::size_t> count_{0}; // items_.size(), for the spin (own line: read by spinners)
    std::atomic<bool> closed_flag_{false};          // closed_, for the spin
};
using feed_queue = basic_feed_queue<>;

namespace detail {
// Traced (to_stablehlo): stablehlo.infeed / stablehlo.outfeed, chained by the recorder's tokens so
// the module keeps the program's order of side effects.
template<class T>
XLET_TRACE_COLD void trace_infeed(trace::recorder& r, const T& v) {
    std::vector<std::string> types;
    trace::result_types<T>(types);
    types.push_back("!stablehlo.token");
    int id = r.emit("stablehlo.infeed", {r.token_in()}, types, "infeed_config = \"\"");
    trace::bind_results(r, v, id);
    r.token_out(id); // the token: the last result
}
template<class X>
XLET_TRACE_COLD void trace_outfeed(trace::recorder& r, const X& x) {
    std::vector<int> ins;
    trace::values_of(r, x, ins);
    ins.push_back(r.token_in());
    r.token_out(r.emit("stablehlo.outfeed", std::move(ins), {"!stablehlo.token"}, "outfeed_config = \"\""));
}
} // namespace detail

// Infeed(shape, config): the next item of the queue, as a T, with a token after it.
template<class T>
std::tuple<T, token> infeed(feed_queue& q, const token&, std::string_view config = {}) {
    (void)config;
    if constexpr (std::is_same_v<T, std::tuple<>>) {
        return {T{}, token{}};
    } else {
        trace::recorder* const r = trace::current();
        T v = [&] {
            trace::pause_if p(r);
            return q.template pop_for<T>("infeed");
        }();
        if constexpr (trace::compiled_in)
            if (r) [[unlikely]]
                detail::trace_infeed(*r, v);
        return {std::move(v), token{}};
    }
}

// Outfeed(operand, shape_with_layout, outfeed_config): appends the operand to the queue.
template<class X>
token outfeed(feed_queue& q, X&& operand, const token&, std::string_view config = {}) {
    (void)config;
    trace::recorder* const r = trace::current();
    if constexpr (trace::compiled_in)
        if (r) [[unlikely]]
            detail::trace_outfeed(*r, operand);
    trace::pause_if p(r);
    q.push_for("outfeed", std::forward<X>(operand));
    return token{};
}

} // namespace xlet
