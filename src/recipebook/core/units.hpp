// Quantities with units, parsed only at the input edge ("80 GiB", "3.35 TB/s", "989.4 TFLOP/s",
// "400 Gbit/s"); inside, everything is SI (bytes, bytes/s, FLOP/s).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rb {

enum class UnitKind { kBytes, kBytesPerSecond, kFlopsPerSecond };

// Parses "<number> <unit>" for the given kind. Bytes: B, KB, MB, GB, TB (powers of 1000), KiB, MiB,
// GiB, TiB. Bandwidth: B/s .. TB/s, and bit rates Mbit/s, Gbit/s, Tbit/s (also Gb/s, Tb/s).
// Compute: FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s. Returns nullopt with `why` set on anything else.
std::optional<double> parse_quantity(std::string_view text, UnitKind kind, std::string* why = nullptr);

// A token budget: "15T", "500B" (or "500G"), "2M", "10K", "1.2e12", "1000000". "" is 0 (no budget);
// nullopt for anything else, zero or negative.
std::optional<double> parse_token_count(std::string_view text);

// "80.0 GiB", "3.35 TB/s", "989.4 TFLOP/s": compact human forms for tables.
std::string format_bytes(double bytes);
std::string format_rate(double bytes_per_s);
std::string format_flops(double flops_per_s);

}  // namespace rb
