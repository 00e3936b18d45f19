#pragma once
// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of checkpoint
// tensors. crc32c() is unmasked, initial value ~0 and final xor ~0 as in iSCSI / RFC
// 3720, so crc32c("123456789") == 0xE3069283 (masked_crc32c gives TensorFlow's stored
// form). Slicing-by-8 over constexpr tables: the table is built at compile time and
// checkpoints of large models hash at memory speed.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace symflow {

namespace detail::crc {

inline constexpr std::uint32_t kPolynomial = 0x82F63B78u;

using Tables = std::array<std::array<std::uint32_t, 256>, 8>;

// tables[0] is the classic byte-at-a-time table; tables[k][b] is the CRC of byte b
// followed by k zero bytes, which lets one step consume 8 bytes.
constexpr Tables make_tables() {
  Tables t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1u) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][i] = c;
  }
  for (std::size_t k = 1; k < 8; ++k)
    for (std::size_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
  return t;
}

inline constexpr Tables kTables = make_tables();

// Little-endian load, independent of the host's byte order.
inline std::uint32_t load_le32(const unsigned char* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 |
         std::uint32_t{p[3]} << 24;
}

}  // namespace detail::crc

namespace io {

// The CRC32C of n bytes. Passing the CRC of a prefix as `crc` extends it:
// crc32c(b, nb, crc32c(a, na)) == crc32c of a followed by b.
inline std::uint32_t crc32c(const void* data, std::size_t n, std::uint32_t crc = 0) {
  const auto& t = detail::crc::kTables;
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t c = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    c ^= detail::crc::load_le32(p);
    std::uint32_t hi = detail::crc::load_le32(p + 4);
    c = t[7][c & 0xFFu] ^ t[6][(c >> 8) & 0xFFu] ^ t[5][(c >> 16) & 0xFFu] ^ t[4][c >> 24] ^
        t[3][hi & 0xFFu] ^ t[2][(hi >> 8) & 0xFFu] ^ t[1][(hi >> 16) & 0xFFu] ^ t[0][hi >> 24];
  }
  for (; n > 0; --n, ++p) c = (c >> 8) ^ t[0][(c ^ *p) & 0xFFu];
  return ~c;
}

inline std::uint32_t crc32c(std::string_view bytes, std::uint32_t crc = 0) {
  return crc32c(bytes.data(), bytes.size(), crc);
}

// TensorFlow (like LevelDB) stores CRCs masked: rotated right by 15 bits plus a
// constant, because a CRC computed over bytes that themselves embed CRCs is weak.
inline constexpr std::uint32_t kCrc32cMaskDelta = 0xa282ead8u;

inline constexpr std::uint32_t masked_crc32c(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kCrc32cMaskDelta;
}

inline constexpr std::uint32_t unmask_crc32c(std::uint32_t masked) {
  const std::uint32_t rotated = masked - kCrc32cMaskDelta;
  return (rotated >> 17) | (rotated << 15);
}

}  // namespace io

}  // namespace symflow
