// What travels with the MPI transport's messages (mpi/transport.hpp): the header every collective
// message carries (the sender's own description of the collective, so a receiver that meets a
// different one can name both), the tags, and the control messages of a run.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../shared_memory.hpp" // collective_desc, describe, device_name

namespace xlet::detail::mpi {

// The sender's description of the collective: two cache lines, copied, never formatted on the
// fast path. A receiver compares it field by field and formats both sides only when they differ
// (the attributes' names follow from the op: attr_names_of). An operand label longer
// than the field is compared by its prefix and a hash of the whole.
struct wire_desc {
    std::uint64_t seq = 0;
    std::int64_t channel = 0;
    std::uint64_t groups_hash = 0;
    std::array<std::int64_t, 4> attrs{};
    std::uint32_t mode = 0;
    std::uint32_t operand_hash = 0;
    char op[24]{};
    char operand[40]{};

    bool same_collective(const wire_desc& o) const {
        return seq == o.seq && channel == o.channel && groups_hash == o.groups_hash && mode == o.mode &&
               attrs == o.attrs && operand_hash == o.operand_hash && std::memcmp(op, o.op, sizeof op) == 0 &&
               std::memcmp(operand, o.operand, sizeof operand) == 0;
    }
    // "all_gather f32[4] (all_gather_dimension=0, shard_count=2, channel_id=0, cross_replica)"
    std::string text() const {
        const attr_names_t names = attr_names_of(op);
        collective_desc d;
        d.op = op;
        d.operand = std::string_view(operand, strnlen(operand, sizeof operand));
        d.attrs = attrs;
        for (std::size_t i = 0; i < 4; ++i)
            d.attr_names[i] = names[i];
        d.channel_id = channel;
        d.mode = static_cast<group_mode>(mode);
        std::string s = describe(d);
        if (groups_hash) {
            char h[24];
            std::snprintf(h, sizeof h, "%016llx", static_cast<unsigned long long>(groups_hash));
            s.insert(s.size() - 1, std::string(", groups hash ") + h);
        }
        return s;
    }
};
static_assert(sizeof(wire_desc) == 128);

inline void copy_name(char* dst, std::size_t n, std::string_view s) {
    const std::size_t k = std::min(n - 1, s.size());
    std::memcpy(dst, s.data(), k);
    dst[k] = 0;
}

// FNV-1a over the groups: equal lists hash equal; 0 stands for "no groups".
inline std::uint64_t hash_groups(const replica_groups_t* gs) {
    if (!gs || gs->empty()) return 0;
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&](std::uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xff;
            h *= 1099511628211ull;
        }
    };
    for (const auto& g : *gs) {
        mix(g.size());
        for (auto id : g)
            mix(static_cast<std::uint64_t>(id));
    }
    return h | 1; // never 0
}

inline wire_desc make_wire(const collective_desc& d, std::uint64_t seq) {
    wire_desc w;
    w.seq = seq;
    w.channel = d.channel_id;
    w.groups_hash = hash_groups(d.groups);
    w.mode = static_cast<std::uint32_t>(d.mode);
    w.attrs = d.attrs;
    copy_name(w.op, sizeof w.op, d.op);
    copy_name(w.operand, sizeof w.operand, d.operand);
    if (d.operand.size() >= sizeof w.operand) {
        std::uint32_t h = 2166136261u;
        for (char c : d.operand)
            h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
        w.operand_hash = h | 1;
    }
    return w;
}

// Message kinds, one tag space each: a collective's first and second phase between devices,
// send/recv, and the two phases between the agents of ranks (a rank-level all_reduce).
enum kind : int { coll = 0, coll2 = 1, p2p = 2, rank1 = 3, rank2 = 4 };
inline constexpr int kinds = 5;
inline constexpr int seq_slots = 16; // a collective's sequence number mod this is in its tag

// Control messages of a run (a communicator of their own).
enum ctrl_tag : int { finished_tag = 1, cancel_tag = 2 };

} // namespace xlet::detail::mpi
