/* The optional compiled part of cnfgen-queens: the DIMACS literal formatter of the generator and the
   body scanner of the readers.  Python gives the same bytes and the same verdicts without it
   (cnfgen_queens/cnf/native.py says which runs; CNFGEN_QUEENS_PURE=1 forces the pure path).

   format_literals(lits) -> bytes          "1 -2 0\n..." of a flat literal array, 0 ending a clause
   format_take(index, sign, mapping) -> bytes  the same of mapping[index] * sign (the template writer)
   scan_count(buf, start, stop, num_vars, top=0) -> (literals, zeros, top, newlines, last_is_zero) or None
                                           (top: the largest variable met before, in earlier pieces)
   scan_literals(buf, start, stop, num_vars, out) -> (literals, newlines) or None, out[:literals] set

   The scanners accept a piece of a DIMACS body made only of literals ([-]digits) and blanks (space,
   \t, \n, \v, \f, \r), every literal within +-num_vars and of at most 18 digits; anything else (a
   comment, a stray byte, "1-2", a lone "-", a literal beyond the header) gives None, and the caller
   reads the piece with the Python parser, which names the line.  So on what they accept they give
   exactly the literals Python's int() gives, and they never refuse what Python would accept
   differently.  Once the largest variable has been met, scan_count goes on with AVX2 bit masks
   where the CPU has them (64 bytes a step, no per-literal work but for literals that could exceed
   the header); elsewhere, and before that, one byte at a time. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------- */
/* formatting                                                                                       */

static const char DIGITS2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static inline int n_digits(uint64_t v) {
    int n = 1;
    while (v >= 10000) { v /= 10000; n += 4; }
    if (v >= 1000) return n + 3;
    if (v >= 100) return n + 2;
    if (v >= 10) return n + 1;
    return n;
}

/* writes literal x and its separator (' ', or '\n' after a 0) at o; returns the end */
static inline char *put_literal(char *o, int64_t x) {
    if (x == 0) { o[0] = '0'; o[1] = '\n'; return o + 2; }
    uint64_t v;
    if (x < 0) { *o++ = '-'; v = (uint64_t)0 - (uint64_t)x; } else { v = (uint64_t)x; }
    char *e = o + n_digits(v), *q = e;
    while (v >= 100) { q -= 2; memcpy(q, DIGITS2 + (v % 100) * 2, 2); v /= 100; }
    if (v >= 10) { q -= 2; memcpy(q, DIGITS2 + v * 2, 2); } else { *--q = (char)('0' + v); }
    *e = ' ';
    return e + 1;
}

/* a C-contiguous buffer of signed integers of 1, 2, 4 or 8 bytes */
typedef struct { Py_buffer view; int size; } ints_t;

static int get_ints(PyObject *obj, ints_t *b, const char *what) {
    if (PyObject_GetBuffer(obj, &b->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    const char *f = b->view.format ? b->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int ok = f[0] && !f[1] && strchr("bhilq", f[0]) && (b->view.itemsize == 1 || b->view.itemsize == 2
                                                        || b->view.itemsize == 4 || b->view.itemsize == 8);
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: a contiguous array of signed integers is needed, not format %s",
                     what, b->view.format ? b->view.format : "B");
        PyBuffer_Release(&b->view);
        return -1;
    }
    b->size = (int)b->view.itemsize;
    return 0;
}

static inline int64_t at(const ints_t *b, Py_ssize_t i) {
    switch (b->size) {
    case 1: return ((const int8_t *)b->view.buf)[i];
    case 2: return ((const int16_t *)b->view.buf)[i];
    case 4: return ((const int32_t *)b->view.buf)[i];
    default: return ((const int64_t *)b->view.buf)[i];
    }
}

static inline Py_ssize_t count_of(const ints_t *b) { return b->view.len / b->view.itemsize; }

/* bytes of at most `cap`, filled by `fill`, cut to what it wrote */
static PyObject *text_of(Py_ssize_t cap, char *(*fill)(char *, void *), void *arg) {
    PyObject *out = PyBytes_FromStringAndSize(NULL, cap);
    if (out == NULL) return NULL;
    char *o = PyBytes_AS_STRING(out), *e;
    Py_BEGIN_ALLOW_THREADS
    e = fill(o, arg);
    Py_END_ALLOW_THREADS
    if (_PyBytes_Resize(&out, e - o) < 0) return NULL;
    return out;
}

static int64_t max_abs(const ints_t *b) {
    uint64_t m = 0;
    for (Py_ssize_t i = 0, n = count_of(b); i < n; i++) {
        int64_t x = at(b, i);
        uint64_t v = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
        if (v > m) m = v;
    }
    return (int64_t)(m > INT64_MAX ? INT64_MAX : m);
}

#define FILL_LITERALS(T)                                                                           \
    static char *fill_literals_##T(char *o, void *arg) {                                           \
        const ints_t *b = arg;                                                                     \
        const T *x = b->view.buf;                                                                  \
        for (Py_ssize_t i = 0, n = count_of(b); i < n; i++) o = put_literal(o, (int64_t)x[i]);     \
        return o;                                                                                  \
    }
FILL_LITERALS(int8_t)
FILL_LITERALS(int16_t)
FILL_LITERALS(int32_t)
FILL_LITERALS(int64_t)

static PyObject *format_literals(PyObject *self, PyObject *arg) {
    ints_t b;
    if (get_ints(arg, &b, "format_literals") < 0) return NULL;
    Py_ssize_t n = count_of(&b);
    int width = n ? n_digits((uint64_t)max_abs(&b)) + 2 : 0;  /* '-', digits, separator */
    char *(*fill)(char *, void *) = b.size == 1 ? fill_literals_int8_t : b.size == 2 ? fill_literals_int16_t
                                    : b.size == 4 ? fill_literals_int32_t : fill_literals_int64_t;
    PyObject *out = text_of(n * width, fill, &b);
    PyBuffer_Release(&b.view);
    return out;
}

typedef struct { ints_t index, sign, mapping; } take_t;

static char *fill_take(char *o, void *arg) {
    const take_t *t = arg;
    Py_ssize_t n = count_of(&t->index);
    if (t->index.size == 4 && t->sign.size == 1 && t->mapping.size == 4) {  /* the writer's arrays */
        const int32_t *ix = t->index.view.buf, *map = t->mapping.view.buf;
        const int8_t *sg = t->sign.view.buf;
        for (Py_ssize_t i = 0; i < n; i++) o = put_literal(o, (int64_t)map[ix[i]] * sg[i]);
        return o;
    }
    for (Py_ssize_t i = 0; i < n; i++) o = put_literal(o, at(&t->mapping, at(&t->index, i)) * at(&t->sign, i));
    return o;
}

static PyObject *format_take(PyObject *self, PyObject *args) {
    PyObject *a, *b, *c;
    if (!PyArg_ParseTuple(args, "OOO:format_take", &a, &b, &c)) return NULL;
    take_t t;
    if (get_ints(a, &t.index, "format_take index") < 0) return NULL;
    if (get_ints(b, &t.sign, "format_take sign") < 0) { PyBuffer_Release(&t.index.view); return NULL; }
    if (get_ints(c, &t.mapping, "format_take mapping") < 0) {
        PyBuffer_Release(&t.index.view);
        PyBuffer_Release(&t.sign.view);
        return NULL;
    }
    PyObject *out = NULL;
    Py_ssize_t n = count_of(&t.index), m = count_of(&t.mapping);
    if (count_of(&t.sign) != n) {
        PyErr_SetString(PyExc_ValueError, "format_take: index and sign differ in length");
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t k = at(&t.index, i), s = at(&t.sign, i);
        if (k < 0 || k >= m || s < -1 || s > 1) {
            PyErr_SetString(PyExc_IndexError, "format_take: an index outside the mapping or a sign not in -1..1");
            goto done;
        }
    }
    out = text_of(n * (n_digits((uint64_t)max_abs(&t.mapping)) + 2), fill_take, &t);
done:
    PyBuffer_Release(&t.index.view);
    PyBuffer_Release(&t.sign.view);
    PyBuffer_Release(&t.mapping.view);
    return out;
}

/* ---------------------------------------------------------------------------------------------- */
/* scanning                                                                                         */

typedef struct { int64_t lits, zeros, top, nl; int last_zero; } counts_t;

static inline int is_digit(unsigned c) { return c - '0' <= 9u; }
static inline int is_blank(unsigned c) { return c == ' ' || c - '\t' <= 4u; }  /* \t \n \v \f \r */

/* One byte at a time from a token boundary: the literals of [p, end) into c (and out, when given).
   With stop_at_top, returns just after the literal that makes the largest variable num_vars.
   NULL: a byte, token or literal the Python parser must read. */
static const unsigned char *scan_scalar(const unsigned char *p, const unsigned char *end, int64_t nv,
                                        counts_t *c, int64_t *out, int stop_at_top) {
    while (p < end) {
        unsigned ch = *p;
        if (ch == ' ') { p++; continue; }
        if (ch == '\n') { c->nl++; p++; continue; }
        if (is_blank(ch)) { p++; continue; }
        int neg = ch == '-';
        p += neg;
        const unsigned char *s = p;
        uint64_t v = 0;
        while (p < end && is_digit(*p) && p - s < 19) { v = v * 10 + (*p - '0'); p++; }
        if (p == s || p - s > 18 || (p < end && !is_blank(*p)) || v > (uint64_t)nv) return NULL;
        c->lits++;
        if (out) *out++ = neg ? -(int64_t)v : (int64_t)v;
        c->last_zero = v == 0;
        c->zeros += v == 0;
        if ((int64_t)v > c->top) c->top = (int64_t)v;
        if (stop_at_top && c->top == nv) return p;
    }
    return p;
}

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#define HAVE_BLOCKS 1
#include <immintrin.h>

typedef struct { uint64_t d, z, m, nl, w, f; } masks_t;

/* the classes of the 64 bytes at q: digit, '0', '-', '\n', blank, digit >= first (num_vars' first digit) */
__attribute__((target("avx2"))) static inline masks_t classify(const unsigned char *q, unsigned char first) {
    masks_t r = {0, 0, 0, 0, 0, 0};
    for (int h = 0; h < 2; h++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(q + 32 * h));
        __m256i t = _mm256_sub_epi8(v, _mm256_set1_epi8('0'));
        __m256i dig = _mm256_cmpeq_epi8(_mm256_min_epu8(t, _mm256_set1_epi8(9)), t);
        __m256i ctl = _mm256_sub_epi8(v, _mm256_set1_epi8('\t'));
        __m256i blank = _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(ctl, _mm256_set1_epi8(4)), ctl),
                                        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(' ')));
        __m256i big = _mm256_and_si256(dig, _mm256_cmpeq_epi8(_mm256_max_epu8(v, _mm256_set1_epi8((char)first)), v));
        int s = 32 * h;
        r.d |= (uint64_t)(uint32_t)_mm256_movemask_epi8(dig) << s;
        r.z |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('0'))) << s;
        r.m |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('-'))) << s;
        r.nl |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'))) << s;
        r.w |= (uint64_t)(uint32_t)_mm256_movemask_epi8(blank) << s;
        r.f |= (uint64_t)(uint32_t)_mm256_movemask_epi8(big) << s;
    }
    return r;
}

static inline uint64_t shifted(uint64_t x, uint64_t prev, int k) { return (x << k) | (prev >> (64 - k)); }

/* Whole 64-byte blocks of [p, end) once the largest variable is num_vars (p: a blank after a literal): returns where the byte-at-a-time scan goes on (a token boundary), or NULL when
   the piece holds what only the Python parser may read.  Literals are counted at the blank after
   their last digit; only one of exactly num_vars' digit count whose first digit is at least its
   first digit is compared with it. */
__attribute__((target("avx2,popcnt,lzcnt,bmi"))) static const unsigned char *scan_blocks(
    const unsigned char *p, const unsigned char *end, const char *nvd, int nd,
    counts_t *c) {
    /* the byte at p is a blank (the scalar scan stopped after a literal): what is before it is left out */
    uint64_t pd = 0, pw = ~(uint64_t)0, pm = 0, pz1 = 0, pr = 0, pf = 0;
    const unsigned char *q = p;
    for (; end - q >= 64; q += 64) {
        masks_t m = classify(q, (unsigned char)nvd[0]);
        uint64_t blank = m.w | m.nl;
        uint64_t prev_d = shifted(m.d, pd, 1), prev_w = shifted(blank, pw, 1), prev_m = shifted(m.m, pm, 1);
        uint64_t z1 = m.z & ~prev_d;
        uint64_t run = m.d;
        for (int k = 1; k < nd; k++) run &= shifted(m.d, pd, k);
        uint64_t care = ~(m.d | m.m | blank) | (m.m & ~prev_w) | (prev_m & ~m.d)  /* a stray byte or '-' */
                        | (m.d & shifted(z1, pz1, 1))                           /* a leading zero */
                        | (run & shifted(m.d, pd, nd));                         /* more digits than num_vars */
        if (care) break;
        uint64_t ends = blank & prev_d;
        uint64_t zero = ends & shifted(z1, pz1, 1);
        uint64_t cand = ends & shifted(run, pr, 1) & shifted(m.f, pf, nd);
        while (cand) {
            int i = __builtin_ctzll(cand);
            cand &= cand - 1;
            if (memcmp(q + i - nd, nvd, (size_t)nd) > 0) return NULL;  /* beyond the header */
        }
        c->lits += __builtin_popcountll(ends);
        c->zeros += __builtin_popcountll(zero);
        c->nl += __builtin_popcountll(m.nl);
        if (ends) c->last_zero = (int)((zero >> (63 - __builtin_clzll(ends))) & 1);
        pd = m.d, pw = blank, pm = m.m, pz1 = z1, pr = run, pf = m.f;
    }
    /* go on after the last blank before q: every literal that ends before q is counted */
    const unsigned char *r = q;
    while (r > p && !is_blank(r[-1])) r--;
    return r;
}

static int blocks_ok = -1;
#endif

static int get_piece(PyObject *obj, Py_ssize_t start, Py_ssize_t stop, Py_buffer *view, const unsigned char **p,
                     const unsigned char **end) {
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0) return -1;
    if (start < 0 || stop > view->len || start > stop) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_IndexError, "scan: start and stop outside the buffer");
        return -1;
    }
    *p = (const unsigned char *)view->buf + start;
    *end = (const unsigned char *)view->buf + stop;
    return 0;
}

static PyObject *scan_count(PyObject *self, PyObject *args) {
    PyObject *obj;
    Py_ssize_t start, stop;
    long long nv, top = 0;
    if (!PyArg_ParseTuple(args, "OnnL|L:scan_count", &obj, &start, &stop, &nv, &top)) return NULL;
    Py_buffer view;
    const unsigned char *p, *end;
    if (get_piece(obj, start, stop, &view, &p, &end) < 0) return NULL;
    counts_t c = {0, 0, top < 0 ? 0 : top, 0, 0};
    char nvd[24];
    int nd = snprintf(nvd, sizeof nvd, "%lld", nv < 0 ? 0 : nv);
    Py_BEGIN_ALLOW_THREADS
    if (nv >= 0) {
        if (c.top < nv) p = scan_scalar(p, end, nv, &c, NULL, 1);
#ifdef HAVE_BLOCKS
        if (blocks_ok && p != NULL && c.top == nv && end - p >= 64) p = scan_blocks(p, end, nvd, nd, &c);
#endif
        if (p != NULL) p = scan_scalar(p, end, nv, &c, NULL, 0);
    } else {
        p = NULL;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (p == NULL) Py_RETURN_NONE;
    return Py_BuildValue("LLLLO", (long long)c.lits, (long long)c.zeros, (long long)c.top, (long long)c.nl,
                         c.last_zero ? Py_True : Py_False);
}

static PyObject *scan_literals(PyObject *self, PyObject *args) {
    PyObject *obj, *dst;
    Py_ssize_t start, stop;
    long long nv;
    if (!PyArg_ParseTuple(args, "OnnLO:scan_literals", &obj, &start, &stop, &nv, &dst)) return NULL;
    Py_buffer view, out;
    const unsigned char *p, *end;
    if (get_piece(obj, start, stop, &view, &p, &end) < 0) return NULL;
    if (PyObject_GetBuffer(dst, &out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    const char *f = out.format ? out.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (out.itemsize != 8 || !(f[0] == 'l' || f[0] == 'q') || f[1] || out.len / 8 < (stop - start) / 2 + 1) {
        PyBuffer_Release(&view);
        PyBuffer_Release(&out);
        PyErr_SetString(PyExc_ValueError, "scan_literals: out must be int64 with room for (stop - start) // 2 + 1");
        return NULL;
    }
    counts_t c = {0, 0, 0, 0, 0};
    Py_BEGIN_ALLOW_THREADS
    p = nv >= 0 ? scan_scalar(p, end, nv, &c, (int64_t *)out.buf, 0) : NULL;
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    PyBuffer_Release(&out);
    if (p == NULL) Py_RETURN_NONE;
    return Py_BuildValue("LL", (long long)c.lits, (long long)c.nl);
}

static PyObject *set_blocks(PyObject *self, PyObject *arg) {
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
#ifdef HAVE_BLOCKS
    blocks_ok = on && __builtin_cpu_supports("avx2");
    return PyBool_FromLong(blocks_ok);
#else
    Py_RETURN_FALSE;
#endif
}

static PyMethodDef methods[] = {
    {"format_literals", format_literals, METH_O, "DIMACS text of a flat literal array (0 ends a clause)."},
    {"format_take", format_take, METH_VARARGS, "DIMACS text of mapping[index] * sign."},
    {"scan_count", scan_count, METH_VARARGS,
     "(literals, zeros, top, newlines, last_is_zero) of buf[start:stop], or None for the Python parser."},
    {"scan_literals", scan_literals, METH_VARARGS,
     "(literals, newlines) of buf[start:stop] with out[:literals] set, or None for the Python parser."},
    {"set_blocks", set_blocks, METH_O, "Use the 64-byte block scan where the CPU has AVX2 (True) or not; "
                                       "returns whether it is used."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native(void) {
#ifdef HAVE_BLOCKS
    __builtin_cpu_init();
    blocks_ok = __builtin_cpu_supports("avx2");
#endif
    return PyModule_Create(&module);
}
