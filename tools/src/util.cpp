// util.cpp - see util.hpp.
#include "util.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mx/error.hpp"

namespace mxv {

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw mx::ParseError(path + ": is a directory, expected a file");
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) throw mx::ParseError(path + ": cannot read: " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw mx::ParseError(path + ": read error");
  return ss.str();
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp-mxconform-" + std::to_string(::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw mx::Error("cannot write '" + path + "': " + std::strerror(errno));
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) {
    const int e = errno;
    std::remove(tmp.c_str());
    throw mx::Error("cannot write '" + path + "': " + std::strerror(e));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp.c_str());
    throw mx::Error("cannot write '" + path + "': " + std::strerror(e));
  }
}

void make_dirs(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec || !std::filesystem::is_directory(path)) {
    throw mx::Error("cannot create output directory '" + path + "': " +
                    (ec ? ec.message() : std::string("not a directory")));
  }
}

void append_hex(std::string& s, std::uint64_t v, int digits) {
  static constexpr char kDig[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) s.push_back(kDig[(v >> (4 * i)) & 0xF]);
}

std::string hex(std::uint64_t v, int digits) {
  std::string s;
  append_hex(s, v, digits);
  return s;
}

bool parse_hex(std::string_view s, int digits, std::uint64_t* out) {
  if (static_cast<int>(s.size()) != digits || digits <= 0 || digits > 16) return false;
  std::uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else {
      return false;
    }
    v = (v << 4) | static_cast<std::uint64_t>(d);
  }
  *out = v;
  return true;
}

bool parse_dec(std::string_view s, std::int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  if (s.size() > 1 && s[0] == '0') return false;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

std::string sha256_hex(std::string_view bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1) {
    throw mx::Error("OpenSSL EVP_Digest(SHA-256) failed");
  }
  std::string s;
  for (unsigned int i = 0; i < len; ++i) append_hex(s, md[i], 2);
  return s;
}

}  // namespace mxv
