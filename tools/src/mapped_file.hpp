// mapped_file.hpp - large tensors without copies (issue 15): a read-only
// memory map of an input file whose pages can be dropped once consumed, and
// an output file written in place (pwrite at any offset) under a temporary
// name that is renamed only when every output of a command is complete, so
// a failure leaves no partial output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxv {

class MappedFile {
 public:
  MappedFile() = default;
  // Throws mx::ParseError("PATH: cannot read: reason"). An empty file maps to size 0.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return static_cast<const char*>(p_); }
  const std::string& path() const { return path_; }
  std::size_t size() const { return n_; }
  std::string_view view() const { return {data(), n_}; }
  // Drops the resident pages wholly inside [off, off + len) (they stay in the
  // page cache); later reads fault them back in. Purely an RSS hint.
  void release(std::size_t off, std::size_t len) const;

 private:
  void* p_ = nullptr;
  std::size_t n_ = 0;
  std::string path_;
};

// Reads `n` bytes at `off` of file `path` into `dst` (pread: one copy out of
// the page cache, no mapping, so no resident pages left behind). Throws
// mx::ParseError("PATH: cannot read: reason"), also on a short file.
class FileReader {
 public:
  explicit FileReader(const std::string& path);
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;
  void read(std::uint64_t off, void* dst, std::size_t n) const;  // thread-safe

 private:
  std::string path_;
  int fd_ = -1;
};

class OutFile {
 public:
  // Creates PATH.tmp-mxconform-PID of `size` bytes; throws mx::Error("cannot write 'PATH': reason").
  OutFile(std::string path, std::uint64_t size);
  ~OutFile();  // removes the temporary unless committed
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;

  // Thread-safe for disjoint ranges.
  void write(std::uint64_t off, const void* p, std::size_t n);
  const std::string& path() const { return path_; }

  // Closes every file and renames them to their final names; on any failure
  // removes what was renamed and every temporary, then throws.
  static void commit(const std::vector<OutFile*>& files);

 private:
  std::string path_, tmp_;
  int fd_ = -1;
  bool done_ = false;
};

}  // namespace mxv
