/* The solver that only reads its input (scripts/bench_speed.py): the whole file, in 1 MB reads, then
   `s UNKNOWN`.  What `cnfgen-queens solve FILE --solver readonly` costs beyond it is the tool's own pass.
   usage: readonly [options] FILE (--version: its version line) */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--version") == 0) { puts("readonly 1.0"); return 0; }
    if (argv[i][0] != '-') path = argv[i];
  }
  int fd = path ? open(path, O_RDONLY) : 0;
  if (fd < 0) { perror(path); return 1; }
  static char buf[1 << 20];
  unsigned long long total = 0, sum = 0;
  ssize_t got;
  while ((got = read(fd, buf, sizeof buf)) > 0) {
    total += (unsigned long long)got;
    for (ssize_t i = 0; i < got; i += 4096) sum += (unsigned char)buf[i]; /* touch what was read */
  }
  printf("c read %llu bytes (%llu)\ns UNKNOWN\n", total, sum);
  return 0;
}
