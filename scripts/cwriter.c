/* The C reference of gen-queens' generator (scripts/bench_speed.py): the clauses of `gen-queens N -e ENC
   --no-comments` for ENC pairwise or sequential, the same bytes, through one buffered writer.
   Row at-least-one clauses, then the at-most-one encoding of every row, column, diagonal (r - c ascending)
   and anti-diagonal (r + c ascending) of length >= 2; auxiliaries from N*N + 1 in that order.
   usage: cwriter pairwise|sequential N [-o FILE] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;
static char buf[1 << 20];
static size_t pos;
static long top;
static int sequential;

static void flush(void) {
  if (fwrite(buf, 1, pos, out) != pos) { perror("cwriter"); exit(1); }
  pos = 0;
}

static void lit(long v) {
  char t[24];
  int k = 0;
  if (pos > sizeof buf - 32) flush();
  if (v < 0) { buf[pos++] = '-'; v = -v; }
  do { t[k++] = (char)('0' + v % 10); v /= 10; } while (v);
  while (k) buf[pos++] = t[--k];
  buf[pos++] = ' ';
}

static void end(void) {
  if (pos > sizeof buf - 32) flush();
  buf[pos++] = '0';
  buf[pos++] = '\n';
}

static void clause2(long a, long b) { lit(a); lit(b); end(); }

static void at_most_one(const long *x, long k) {
  if (k < 2) return;
  if (!sequential) {
    for (long i = 0; i < k; i++)
      for (long j = i + 1; j < k; j++) clause2(-x[i], -x[j]);
    return;
  }
  long s = top + 1; /* s_i = s + i for i = 0 .. k-2 (Sinz 2005) */
  top += k - 1;
  clause2(-x[0], s);
  for (long i = 1; i < k - 1; i++) {
    clause2(-x[i], s + i);
    clause2(-(s + i - 1), s + i);
    clause2(-x[i], -(s + i - 1));
  }
  clause2(-x[k - 1], -(s + k - 2));
}

static long line_clauses(long k) { return k < 2 ? 0 : sequential ? 3 * k - 4 : k * (k - 1) / 2; }

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: cwriter pairwise|sequential N [-o FILE]\n"); return 2; }
  sequential = strcmp(argv[1], "sequential") == 0;
  long n = atol(argv[2]);
  out = stdout;
  if (argc == 5 && strcmp(argv[3], "-o") == 0 && !(out = fopen(argv[4], "wb"))) { perror(argv[4]); return 1; }
  long vars = n * n, clauses = n;
  for (long k = 2; k <= n; k++) { /* rows and columns: n lines of length n; each diagonal direction: 2 of each k < n, 1 of n */
    long lines = 2 * (k == n ? n : 0) + 2 * (k == n ? 1 : 2);
    clauses += lines * line_clauses(k);
    if (sequential) vars += lines * (k - 1);
  }
  pos = (size_t)sprintf(buf, "p cnf %ld %ld\n", vars, clauses);
  for (long r = 0; r < n; r++) {
    for (long c = 0; c < n; c++) lit(r * n + c + 1);
    end();
  }
  long *x = malloc(sizeof(long) * (size_t)n);
  top = n * n;
  for (long r = 0; r < n; r++) { for (long c = 0; c < n; c++) x[c] = r * n + c + 1; at_most_one(x, n); }
  for (long c = 0; c < n; c++) { for (long r = 0; r < n; r++) x[r] = r * n + c + 1; at_most_one(x, n); }
  for (long d = -(n - 2); d <= n - 2; d++) { /* r - c = d */
    long r0 = d > 0 ? d : 0, c0 = r0 - d, len = n - labs(d);
    for (long i = 0; i < len; i++) x[i] = (r0 + i) * n + c0 + i + 1;
    at_most_one(x, len);
  }
  for (long s = 1; s <= 2 * n - 3; s++) { /* r + c = s */
    long r0 = s - (n - 1) > 0 ? s - (n - 1) : 0, c0 = s - r0, len = (s < 2 * n - 2 - s ? s : 2 * n - 2 - s) + 1;
    for (long i = 0; i < len; i++) x[i] = (r0 + i) * n + c0 - i + 1;
    at_most_one(x, len);
  }
  flush();
  free(x);
  return fclose(out) == 0 ? 0 : 1;
}
