/* A "kernels library" that is none: as it is mapped, its constructor writes the path it
 * was loaded from into the file that NEE_TEST_MARKER names, so a test sees whether any
 * code of a bundle ran, and from where. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void leave_marker(void) {
  const char* path = getenv("NEE_TEST_MARKER");
  if (!path) return;
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  Dl_info info;
  const char* from = dladdr((void*)&leave_marker, &info) && info.dli_fname ? info.dli_fname : "unknown";
  if (write(fd, from, strlen(from)) < 0) abort();
  close(fd);
}
