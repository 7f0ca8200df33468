#include "runtime/file_bytes.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace cortado {

bool read_file_bytes(const std::string &path, std::string *bytes, std::string *error) {
    struct stat info;
    if (stat(path.c_str(), &info) != 0) {
        *error = path + ": " + (errno == ENOENT ? "no such file" : std::strerror(errno));
        return false;
    }
    if (S_ISDIR(info.st_mode)) {
        *error = path + ": is a directory, not a file";
        return false;
    }
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *error = path + ": cannot open file" + (errno ? std::string(" (") + std::strerror(errno) + ")" : "");
        return false;
    }
    // Read in chunks rather than trusting the reported size, which pipes do not have.
    bytes->clear();
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) bytes->append(chunk, size_t(in.gcount()));
    if (in.bad()) {
        *error = path + ": read failed";
        return false;
    }
    return true;
}

}  // namespace cortado
