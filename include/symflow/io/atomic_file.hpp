#pragma once
// Whole-file I/O for checkpoints, on POSIX calls so that every failure has an errno
// to report. Writes are atomic: the bytes go to a temporary file in the target's
// directory, which is fsync'ed and renamed over the target, so a reader (or a crash)
// sees either the old file or the complete new one, never a torn write. OS errors
// become TensorFlow's typed errors with TF's errno mapping (ENOENT is NotFound,
// EACCES PermissionDenied, ENOSPC ResourceExhausted, ...), and the message names the
// file and ends with the OS's description, as TF's IOError does: "<file>; <strerror>".
// A process killed between creating its temporary file and the rename leaves that file
// behind; every successful write removes such leftovers from its directory (those whose
// writing process is gone), so interrupted saves do not accumulate.

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "symflow/core/errors.hpp"

namespace symflow {

namespace detail::file_io {

// Throws the error TensorFlow's ErrnoToCode gives `err`, with "<context>; <strerror>".
[[noreturn]] inline void throw_os_error(int err, const std::string& context) {
  std::string message = context + "; " + std::system_category().message(err);
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
    case ESRCH:
      throw NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      throw PermissionDeniedError(message);
    case EEXIST:
      throw AlreadyExistsError(message);
    case EINVAL:
    case ENAMETOOLONG:
    case EFAULT:
      throw InvalidArgumentError(message);
    case ENOTDIR:
    case EISDIR:
    case ENOTEMPTY:
    case EBADF:
    case EBUSY:
    case ETXTBSY:
      throw FailedPreconditionError(message);
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case EMLINK:
      throw ResourceExhaustedError(message);
    case EFBIG:
    case EOVERFLOW:
      throw OutOfRangeError(message);
    case ENOSYS:
    case EXDEV:
      throw UnimplementedError(message);
    case EAGAIN:
    case EINTR:
      throw UnavailableError(message);
    default:
      throw UnknownError(message);
  }
}

// Closes its descriptor on every path out of a function.
class UniqueFd {
 public:
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and reports close's errno (0 on success): a failed close can mean lost data.
  int close() {
    if (fd_ < 0) return 0;
    int rc = ::close(std::exchange(fd_, -1));
    return rc == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

inline int open_retrying(const char* path, int flags, mode_t mode = 0) {
  int fd;
  do fd = ::open(path, flags | O_CLOEXEC, mode);
  while (fd < 0 && errno == EINTR);
  return fd;
}

// Writes all n bytes; returns 0 or the errno of the failing write.
inline int write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return 0;
}

// "<dir>/<name>.tmp<pid>_<n>": unique within this process by the counter, and
// across processes by the pid.
inline std::filesystem::path temp_path_for(const std::filesystem::path& path) {
  static std::atomic<std::uint64_t> counter{0};
  std::filesystem::path tmp = path;
  tmp += ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  return tmp;
}

// The pid in a temporary file's name "<name>.tmp<pid>_<n>", or 0 when `filename` does
// not have that form.
inline pid_t temp_file_pid(std::string_view filename) {
  const std::size_t tmp = filename.rfind(".tmp");
  if (tmp == std::string_view::npos || tmp == 0) return 0;
  std::string_view rest = filename.substr(tmp + 4);
  const std::size_t underscore = rest.find('_');
  if (underscore == std::string_view::npos) return 0;
  auto all_digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  const std::string_view pid_text = rest.substr(0, underscore);
  if (!all_digits(pid_text) || !all_digits(rest.substr(underscore + 1))) return 0;
  pid_t pid = 0;
  auto [end, error] = std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), pid);
  if (error != std::errc() || end != pid_text.data() + pid_text.size()) return 0;
  return pid;
}

// Removes the temporary files in `dir` that writes of processes no longer running left
// behind. A file whose pid is a live process (or one we may not signal) may be a write in
// progress and is kept; so are files of any other form. Best effort: a file that cannot
// be listed or removed stays, and the write that called this has succeeded anyway.
inline void remove_stale_temp_files(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const pid_t pid = temp_file_pid(name);
    if (pid <= 0 || pid == ::getpid()) continue;  // this process's own writes are never stale
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code regular_ec;
    if (!it->is_regular_file(regular_ec)) continue;
    ::unlink(it->path().c_str());
  }
}

}  // namespace detail::file_io

namespace io {

// Replaces `path` with the concatenation of `pieces` atomically (see the header
// comment). Gathering pieces lets a caller write many tensors without first copying
// them into one buffer. On failure the temporary file is removed, `path` keeps its
// old content, and a typed error names `path` and the OS error.
inline void write_file_atomically(const std::filesystem::path& path,
                                  std::span<const std::string_view> pieces) {
  namespace fio = detail::file_io;
  if (path.empty() || !path.has_filename())
    throw InvalidArgumentError("Cannot write file '" + path.string() +
                               "': expected a path that names a file");
  const std::string target = path.string();
  std::filesystem::path tmp;
  int fd = -1;
  // O_EXCL: never write into a file someone else has, e.g. one left by a crashed
  // process whose pid is reused; try the next counter value instead.
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = fio::temp_path_for(path);
    fd = fio::open_retrying(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0)
    fio::throw_os_error(
        errno, "Failed to write " + target + " (creating temporary file " + tmp.string() + ")");
  fio::UniqueFd file(fd);
  auto fail = [&](int err, const char* step) {
    file.close();
    ::unlink(tmp.c_str());
    fio::throw_os_error(
        err, "Failed to write " + target + " (" + step + " temporary file " + tmp.string() + ")");
  };
  for (std::string_view piece : pieces)
    if (int err = fio::write_all(file.get(), piece.data(), piece.size())) fail(err, "writing");
  if (::fsync(file.get()) != 0) fail(errno, "syncing");
  if (int err = file.close()) fail(err, "closing");
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    fio::throw_os_error(err, "Failed to write " + target + " (renaming temporary file " +
                                 tmp.string() + " over it)");
  }
  // The rename is durable only once the directory entry is: sync the directory.
  // Some file systems cannot sync a directory (EINVAL); the file itself is already safe.
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  int dfd = fio::open_retrying(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd < 0) fio::throw_os_error(errno, "Failed to sync directory " + dir.string());
  fio::UniqueFd dir_file(dfd);
  if (::fsync(dir_file.get()) != 0 && errno != EINVAL)
    fio::throw_os_error(errno, "Failed to sync directory " + dir.string());
  fio::remove_stale_temp_files(dir);
}

inline void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  write_file_atomically(path, std::span<const std::string_view>(&bytes, 1));
}

// The size of a file in bytes.
inline std::uint64_t file_size(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) detail::file_io::throw_os_error(errno, path.string());
  if (!S_ISREG(st.st_mode)) throw FailedPreconditionError(path.string() + " is not a regular file");
  return static_cast<std::uint64_t>(st.st_size);
}

// Reads up to n bytes at `offset` into `out`; returns how many were read, fewer
// than n only when the file ends first.
inline std::size_t read_file_at(const std::filesystem::path& path, std::uint64_t offset, void* out,
                                std::size_t n) {
  namespace fio = detail::file_io;
  int fd = fio::open_retrying(path.c_str(), O_RDONLY);
  if (fd < 0) fio::throw_os_error(errno, path.string());
  fio::UniqueFd file(fd);
  if (offset > static_cast<std::uint64_t>(std::numeric_limits<off_t>::max()))
    throw OutOfRangeError(path.string() + ": offset " + std::to_string(offset) +
                          " is beyond the largest file offset");
  auto* dst = static_cast<char*>(out);
  std::size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(file.get(), dst + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      fio::throw_os_error(errno, path.string());
    }
    if (r == 0) break;  // end of file
    done += static_cast<std::size_t>(r);
  }
  return done;
}

// The whole content of a file; NotFoundError "<path>; No such file or directory"
// when it is missing.
inline std::string read_file(const std::filesystem::path& path) {
  namespace fio = detail::file_io;
  int fd = fio::open_retrying(path.c_str(), O_RDONLY);
  if (fd < 0) fio::throw_os_error(errno, path.string());
  fio::UniqueFd file(fd);
  std::string out;
  struct stat st {};
  if (::fstat(file.get(), &st) == 0 && S_ISREG(st.st_mode))
    out.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    ssize_t r = ::read(file.get(), buffer, sizeof buffer);
    if (r < 0) {
      if (errno == EINTR) continue;
      fio::throw_os_error(errno, path.string());
    }
    if (r == 0) break;
    out.append(buffer, static_cast<std::size_t>(r));
  }
  return out;
}

// Removes a file; a missing file is not an error.
inline void remove_file_if_exists(const std::filesystem::path& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    detail::file_io::throw_os_error(errno, "Failed to remove " + path.string());
}

}  // namespace io

}  // namespace symflow
