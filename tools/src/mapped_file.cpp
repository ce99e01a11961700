// mapped_file.cpp - see mapped_file.hpp (POSIX mmap, pwrite, rename).
#include "mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "mx/error.hpp"

namespace mxv {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw mx::ParseError(path + ": cannot read: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw mx::ParseError(path + ": cannot read: " + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw mx::ParseError(path + ": is a directory, expected a file");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw mx::ParseError(path + ": not a regular file");
  }
  n_ = static_cast<std::size_t>(st.st_size);
  if (n_ > 0) {
    void* p = ::mmap(nullptr, n_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      n_ = 0;
      throw mx::ParseError(path + ": cannot map: " + std::strerror(e));
    }
    p_ = p;
    ::madvise(p_, n_, MADV_SEQUENTIAL);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (p_) ::munmap(p_, n_);
}
MappedFile::MappedFile(MappedFile&& o) noexcept
    : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), path_(std::move(o.path_)) {}
MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    if (p_) ::munmap(p_, n_);
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
    path_ = std::move(o.path_);
  }
  return *this;
}

FileReader::FileReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw mx::ParseError(path + ": cannot read: " + std::strerror(errno));
#if defined(POSIX_FADV_SEQUENTIAL)
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
}

FileReader::~FileReader() {
  if (fd_ >= 0) ::close(fd_);
}

void FileReader::read(std::uint64_t off, void* dst, std::size_t n) const {
  char* c = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd_, c, n, static_cast<off_t>(off));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) throw mx::ParseError(path_ + ": cannot read: " + (r < 0 ? std::strerror(errno) : "the file is shorter than it was"));
    c += r;
    off += static_cast<std::uint64_t>(r);
    n -= static_cast<std::size_t>(r);
  }
}

void MappedFile::release(std::size_t off, std::size_t len) const {
  if (!p_ || off >= n_) return;
  const auto pg = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::size_t a = (off + pg - 1) / pg * pg;
  std::size_t b = off + len >= n_ ? n_ : (off + len) / pg * pg;
  if (b == n_) b = (n_ + pg - 1) / pg * pg;  // the mapping's last partial page
  if (b > a) ::madvise(static_cast<char*>(p_) + a, b - a, MADV_DONTNEED);
}

OutFile::OutFile(std::string path, std::uint64_t size) : path_(std::move(path)) {
  tmp_ = path_ + ".tmp-mxconform-" + std::to_string(::getpid());
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw mx::Error("cannot write '" + path_ + "': " + std::strerror(errno));
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
    const int e = errno;
    ::close(fd_);
    ::unlink(tmp_.c_str());
    fd_ = -1;
    throw mx::Error("cannot write '" + path_ + "': " + std::strerror(e));
  }
}

OutFile::~OutFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!done_) ::unlink(tmp_.c_str());
}

void OutFile::write(std::uint64_t off, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::pwrite(fd_, c, n, static_cast<off_t>(off));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw mx::Error("cannot write '" + path_ + "': " + std::strerror(w < 0 ? errno : ENOSPC));
    c += w;
    off += static_cast<std::uint64_t>(w);
    n -= static_cast<std::size_t>(w);
  }
}

void OutFile::commit(const std::vector<OutFile*>& files) {
  for (OutFile* f : files) {
    const int rc = ::close(f->fd_);
    f->fd_ = -1;
    if (rc != 0) throw mx::Error("cannot write '" + f->path_ + "': " + std::strerror(errno));
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::rename(files[i]->tmp_.c_str(), files[i]->path_.c_str()) != 0) {
      const int e = errno;
      for (std::size_t k = 0; k < i; ++k) ::unlink(files[k]->path_.c_str());
      throw mx::Error("cannot write '" + files[i]->path_ + "': " + std::strerror(e));
    }
    files[i]->done_ = true;
  }
}

}  // namespace mxv
