// The interface between the collectives and whatever carries their bytes, and the replica context
// a user's SPMD program receives. Nothing here names TBB: the in-process replica pool (pool.hpp)
// is one transport; a message-passing one (one process per replica) implements the same virtual
// functions and runs the same program unchanged.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../core/error.hpp"
#include "../core/owner.hpp"

namespace xlet {

// replica_groups as XLA writes them: {{0, 2}, {1, 3}}; empty means one group of everyone.
using replica_groups_t = std::vector<std::vector<std::int64_t>>;

// The run-time attributes every collective shares, named as XLA's fields:
//   all_reduce(ctx, x, add_fn{}, {.replica_groups = {{0, 2}, {1, 3}}, .channel_id = 1});
// channel_id 0 means "no channel" (XLA's handles are positive).
struct collective_opts {
    replica_groups_t replica_groups{};
    std::int64_t channel_id = 0;
    bool use_global_device_ids = false;
};

// Source-target pairs of collective_permute: {{0, 1}, {1, 2}}.
using source_target_pairs_t = std::vector<std::pair<std::int64_t, std::int64_t>>;

namespace detail {

// How the ids in replica_groups name devices (StableHLO's process-group modes).
enum class group_mode { cross_replica, cross_partition, cross_replica_and_partition, flattened_ids };

inline const char* mode_name(group_mode m) {
    switch (m) {
    case group_mode::cross_replica:
        return "cross_replica";
    case group_mode::cross_partition:
        return "cross_partition";
    case group_mode::cross_replica_and_partition:
        return "cross_replica_and_partition";
    default:
        return "flattened_ids";
    }
}

// A collective as every member must describe it: the op, its operand (type and shape), its static
// attributes, channel and groups. Two devices meeting at the same collective with different
// descriptions is a misuse the transport reports (naming both).
struct collective_desc {
    const char* op = "";
    std::string_view operand;                // "f32[4,16]": a static string of the operand type
    std::array<std::int64_t, 4> attrs{};     // dims, counts: whatever the op's output depends on
    std::array<const char*, 4> attr_names{}; // their spec names, for messages
    std::int64_t channel_id = 0;
    group_mode mode = group_mode::cross_replica;
    const replica_groups_t* groups = nullptr; // or the pairs of a permute, as groups of two
};

// The attributes' names of the collectives that have any, as their descriptions list them (also
// what a process names another process's attributes by, knowing only the op: mpi/wire.hpp).
using attr_names_t = std::array<const char*, 4>;
inline constexpr attr_names_t all_gather_attr_names{"all_gather_dimension", "shard_count"};
inline constexpr attr_names_t reduce_scatter_attr_names{"scatter_dimension", "shard_count"};
inline constexpr attr_names_t all_to_all_attr_names{"split_dimension", "concat_dimension", "split_count"};
inline constexpr attr_names_t ragged_attr_names{"output_rows", "updates"};
inline attr_names_t attr_names_of(std::string_view op) {
    if (op == "all_gather") return all_gather_attr_names;
    if (op == "reduce_scatter") return reduce_scatter_attr_names;
    if (op == "all_to_all") return all_to_all_attr_names;
    if (op == "ragged_all_to_all") return ragged_attr_names;
    return {};
}

// A rectangular piece of a row-major array (all_gather, all_to_all, reduce_scatter): `size` is the
// piece's shape, strides are in elements; piece j of the sender starts at j * src_step, and the
// piece from the member at group position k lands at k * dst_step.
struct box {
    std::size_t rank = 0, elem_bytes = 0;
    std::array<std::size_t, 8> size{};
    std::array<std::ptrdiff_t, 8> src_stride{}, dst_stride{};
    std::ptrdiff_t src_step = 0, dst_step = 0;
    std::size_t elements() const {
        std::size_t n = 1;
        for (std::size_t i = 0; i < rank; ++i)
            n *= size[i];
        return n;
    }
};

// dst[i] = f(a[i], b[i]) for n elements: the reduction computation, type-erased. dst may be a.
struct combiner {
    void (*fn)(const void* f, void* dst, const void* a, const void* b, std::size_t n) = nullptr;
    const void* f = nullptr;
    void operator()(void* dst, const void* a, const void* b, std::size_t n) const { fn(f, dst, a, b, n); }
};

// The members of the group a device is in, as device ids (replica * partitions + partition), in
// the group's order; `me` is this device's position, or -1 when it is in no group.
struct group_view {
    std::vector<std::uint32_t> members;
    std::ptrdiff_t me = -1;
};

// The last group a device resolved and what it was resolved from: programs repeat their groups, and
// a 4-byte all_reduce should not allocate a member list each time.
struct group_cache {
    bool valid = false, cover = false, equal = false;
    int mode = 0;
    replica_groups_t groups;
    group_view view;
};

} // namespace detail

class replica_context;

namespace detail {
// A collective or transfer in flight (the *_start forms): what the transport needs to finish it.
class pending {
public:
    virtual ~pending() = default;
};
using pending_ptr = owner<pending>;

// The per-member arrays of ragged_all_to_all, [group size][updates] each, as int64.
struct ragged_meta {
    const std::int64_t *input_offsets, *send_sizes, *output_offsets, *recv_sizes;
    std::size_t updates;
    std::size_t row_bytes, in_rows, out_rows;
};
} // namespace detail

// What a transport provides. Buffers are row-major arrays of the collective's element type. Each
// collective call with async = false returns when this device's output is complete (or throws
// xlet::error) and returns null; with async = true it only joins the collective and returns what
// complete() needs: until then the input must stay alive and unmodified and the output untouched.
// The group has been validated by the caller.
class transport {
public:
    virtual ~transport() = default;
    virtual std::uint32_t replica_count() const = 0;
    virtual std::uint32_t partition_count() const = 0;
    // out = fold of the members' `in` in group order, f(f(in_0, in_1), in_2)...
    virtual detail::pending_ptr all_reduce(replica_context&, const detail::collective_desc&, const detail::group_view&,
                                           const void* in, void* out, std::size_t elements, std::size_t elem_bytes,
                                           const detail::combiner&, bool async) = 0;
    // out's piece k = member k's piece `me` (all_gather: every member sends its whole input).
    virtual detail::pending_ptr exchange(replica_context&, const detail::collective_desc&, const detail::group_view&,
                                         const void* in, void* out, const detail::box&, bool async) = 0;
    // out = fold over members of their piece `me`, in group order.
    virtual detail::pending_ptr reduce_scatter(replica_context&, const detail::collective_desc&,
                                               const detail::group_view&, const void* in, void* out, const detail::box&,
                                               const detail::combiner&, bool async) = 0;
    // out = the input of member `source` of the group (-1: zeros). Used by collective_permute (a
    // group per scope, source from the pairs) and collective_broadcast (source 0 of each group).
    virtual detail::pending_ptr copy_from(replica_context&, const detail::collective_desc&, const detail::group_view&,
                                          std::ptrdiff_t source, const void* in, void* out, std::size_t bytes,
                                          bool async) = 0;
    // ragged_all_to_all: rows of every member's input to every member's (already filled) output.
    virtual detail::pending_ptr ragged_exchange(replica_context&, const detail::collective_desc&,
                                                const detail::group_view&, const void* in, void* out,
                                                const detail::ragged_meta&, bool async) = 0;
    // Point to point on a channel: the operand stays readable until the send completes; the
    // receive completes when the data is in `out`. Matched in order per (channel, source, target).
    virtual detail::pending_ptr send(replica_context&, std::int64_t channel, std::uint32_t target_device,
                                     std::string_view operand, const void* in, std::size_t bytes) = 0;
    virtual detail::pending_ptr recv(replica_context&, std::int64_t channel, std::uint32_t source_device,
                                     std::string_view operand, void* out, std::size_t bytes) = 0;
    // Finishes what an async call or send/recv returned.
    virtual void complete(replica_context&, detail::pending&) = 0;
};

// What a replica's program sees: who it is, and the transport its collectives go through.
class replica_context {
public:
    replica_context(transport& t, std::uint32_t replica, std::uint32_t partition)
        : t_(&t), replica_(replica), partition_(partition) {}
    replica_context(const replica_context&) = delete;
    replica_context& operator=(const replica_context&) = delete;

    std::uint32_t replica_id() const { return replica_; }
    std::uint32_t partition_id() const { return partition_; }
    std::uint32_t replica_count() const { return t_->replica_count(); }
    std::uint32_t partition_count() const { return t_->partition_count(); }
    // replica_id * partition_count + partition_id, as use_global_device_ids counts.
    std::uint32_t device_id() const { return replica_ * partition_count() + partition_; }
    // How many collectives this device has entered, in all and per channel: the n-th collective
    // on a channel of every device meets the n-th on that channel of the others (channel 0: the
    // collectives without a channel).
    std::uint64_t collectives_entered() const { return total_; }
    const std::map<std::int64_t, std::uint64_t>& collectives_by_channel() const { return seq_; }

    transport& transport_() { return *t_; }
    detail::group_cache& last_group() { return last_group_; }
    template<class = void> // (compiled only where a collective is entered)
    std::uint64_t next_sequence(std::int64_t channel) {
        ++total_;
        return seq_[channel]++;
    }

private:
    transport* t_;
    std::uint32_t replica_, partition_;
    std::map<std::int64_t, std::uint64_t> seq_;
    std::uint64_t total_ = 0;
    detail::group_cache last_group_;
};

namespace detail {

// (Appends, not `"," + std::string`: GCC 12 warns falsely (-Wrestrict) on the latter.)
template<class = void>
std::string list_string(const std::vector<std::int64_t>& g) {
    std::string s = "{";
    for (std::size_t i = 0; i < g.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(g[i]);
    }
    s += '}';
    return s;
}
template<class = void>
std::string groups_string(const replica_groups_t& gs) {
    std::string s = "{";
    for (std::size_t i = 0; i < gs.size() && i < 16; ++i) {
        if (i) s += ',';
        s += list_string(gs[i]);
    }
    if (gs.size() > 16) s += ",...";
    s += '}';
    return s;
}

// The mode a collective's attributes select (StableHLO: all_gather, all_reduce, reduce_scatter
// use three modes; all_to_all, collective_broadcast and collective_permute two).
template<class = void>
group_mode mode_of(const char* op, const collective_opts& o, bool has_global_ids) {
    if (!has_global_ids) return o.channel_id > 0 ? group_mode::cross_partition : group_mode::cross_replica;
    if (o.channel_id <= 0) {
        if (o.use_global_device_ids)
            throw error(op, "use_global_device_ids needs a channel_id > 0 (StableHLO: no mode for channel_id <= 0 "
                            "with global ids)");
        return group_mode::cross_replica;
    }
    return o.use_global_device_ids ? group_mode::flattened_ids : group_mode::cross_replica_and_partition;
}

// The group this device belongs to, with the rules the spec gives: ids in range and not repeated;
// `cover`: every id in some group (XLA: "the same number of elements as the number of replicas");
// `equal`: all groups the same size. Empty groups: one group of every id of the mode.
template<class = void>
group_view resolve_group(const char* op, group_mode mode, const replica_groups_t& groups, std::uint32_t R,
                         std::uint32_t P, std::uint32_t replica, std::uint32_t partition, bool cover, bool equal) {
    const std::uint32_t domain = mode == group_mode::cross_partition ? P
                                 : mode == group_mode::flattened_ids ? R * P
                                                                     : R;
    const char* what = mode == group_mode::cross_partition ? "partition"
                       : mode == group_mode::flattened_ids ? "global device"
                                                           : "replica";
    const std::uint32_t self = mode == group_mode::cross_partition ? partition
                               : mode == group_mode::flattened_ids ? replica * P + partition
                                                                   : replica;
    if (groups.empty()) { // one group of every id, in order: nothing to validate
        group_view v;
        v.members.reserve(mode == group_mode::cross_replica_and_partition ? R * P : domain);
        switch (mode) {
        case group_mode::cross_replica:
            for (std::uint32_t u = 0; u < R; ++u)
                v.members.push_back(u * P + partition);
            break;
        case group_mode::cross_partition:
            for (std::uint32_t u = 0; u < P; ++u)
                v.members.push_back(replica * P + u);
            break;
        case group_mode::flattened_ids:
            for (std::uint32_t u = 0; u < R * P; ++u)
                v.members.push_back(u);
            break;
        case group_mode::cross_replica_and_partition:
            for (std::uint32_t p = 0; p < P; ++p)
                for (std::uint32_t u = 0; u < R; ++u)
                    v.members.push_back(u * P + p);
            break;
        }
        v.me = mode == group_mode::cross_replica_and_partition ? static_cast<std::ptrdiff_t>(partition * R + replica)
                                                               : static_cast<std::ptrdiff_t>(self);
        return v;
    }
    const replica_groups_t* gs = &groups;
    std::vector<char> seen(domain, 0);
    std::size_t count = 0;
    for (const auto& g : *gs) {
        if (g.empty()) throw error(op, "replica_groups ", groups_string(*gs), " has an empty group");
        if (equal && g.size() != (*gs)[0].size())
            throw error(op, "replica_groups ", groups_string(*gs), " have unequal sizes (", (*gs)[0].size(), " and ",
                        g.size(), "); this op needs equal groups");
        for (auto id : g) {
            if (id < 0 || id >= static_cast<std::int64_t>(domain))
                throw error(op, "replica_groups ", groups_string(*gs), " names ", what, " ", id, ", outside [0, ",
                            domain, ") (", mode_name(mode), " mode)");
            if (seen[static_cast<std::size_t>(id)]++)
                throw error(op, "replica_groups ", groups_string(*gs), " name ", what, " ", id, " twice");
            ++count;
        }
    }
    if (cover && count != domain)
        throw error(op, "replica_groups ", groups_string(*gs), " cover ", count, " of the ", domain, " ", what,
                    "s; this op needs every ", what, " in a group");
    // Find this device's group and expand it to device ids.
    group_view v;
    for (const auto& g : *gs) {
        std::ptrdiff_t pos = -1;
        for (std::size_t i = 0; i < g.size(); ++i)
            if (g[i] == static_cast<std::int64_t>(self)) pos = static_cast<std::ptrdiff_t>(i);
        if (pos < 0) continue;
        for (auto id : g) {
            const auto u = static_cast<std::uint32_t>(id);
            switch (mode) {
            case group_mode::cross_replica:
                v.members.push_back(u * P + partition);
                break;
            case group_mode::cross_partition:
                v.members.push_back(replica * P + u);
                break;
            case group_mode::flattened_ids:
                v.members.push_back(u);
                break;
            case group_mode::cross_replica_and_partition:
                break; // below, partition-major
            }
        }
        if (mode == group_mode::cross_replica_and_partition)
            for (std::uint32_t p = 0; p < P; ++p)
                for (auto id : g)
                    v.members.push_back(static_cast<std::uint32_t>(id) * P + p);
        // StableHLO orders a cross_replica_and_partition group partition by partition.
        v.me = mode == group_mode::cross_replica_and_partition ? static_cast<std::ptrdiff_t>(partition * g.size()) + pos
                                                               : pos;
        break;
    }
    return v;
}

} // namespace detail

} // namespace xlet
