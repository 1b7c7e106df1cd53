/*
 * Token windows of BERT WordPiece, computed in one pass over a str.
 *
 * The C half of ragkit.splitters._wordpiece_fast (read that module first).
 * It cuts the text into words the way BERT's pre-tokenizer does (whitespace,
 * punctuation, CJK ideographs; the character classes come from Python as a
 * bytes table), tokenizes every printable-ASCII word itself (lowercase, then
 * greedy longest-match-first against the vocabulary, "##" continuations, a
 * word over 100 characters or one that cannot be covered is one [UNK]), and
 * takes the token spans of every other word from a dict the Python side
 * fills with the real tokenizer's answers. It returns the (start, end) of
 * each window of `size` tokens, `step` tokens apart, as LangChain's loop
 * makes them; no per-token Python object is created.
 *
 *     vocab = Vocab(["[UNK]", "the", "##s", ...])
 *     windows(text, vocab, classes, known, size, step)
 *         -> ([(start, end), ...], [])          every word known
 *         -> ([], ["naïve", ...])               words to add to `known` first
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_WORD_CHARS 100 /* longer words are one [UNK] (max_input_chars_per_word) */

/* character classes, as in the table Python passes (index = code point) */
#define CLS_WORD 0  /* part of a word */
#define CLS_SPACE 1 /* whitespace: separates words, no token */
#define CLS_SINGLE 2 /* punctuation or CJK ideograph: a word of its own */

/* -- the vocabulary: an open-addressing hash set of ASCII entries ------------------------ */

typedef struct {
    PyObject_HEAD
    char *text;          /* every entry's bytes, one after the other */
    Py_ssize_t *offset;  /* entry i is text[offset[i] : offset[i] + length[i]] */
    uint8_t *length;
    uint8_t *tail;       /* 1 for a "##" continuation (stored without the "##") */
    int32_t *slots;      /* entry index + 1, 0 = empty */
    size_t mask;         /* slots has mask + 1 entries */
    Py_ssize_t longest;  /* longest entry, in bytes */
} Vocab;

static uint64_t hash_piece(const char *s, Py_ssize_t n, int tail) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)tail;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static int vocab_has(const Vocab *v, const char *s, Py_ssize_t n, int tail) {
    size_t i = (size_t)hash_piece(s, n, tail) & v->mask;
    for (;;) {
        int32_t e = v->slots[i];
        if (e == 0) return 0;
        e -= 1;
        if (v->length[e] == n && v->tail[e] == tail && memcmp(v->text + v->offset[e], s, (size_t)n) == 0)
            return 1;
        i = (i + 1) & v->mask;
    }
}

static void Vocab_dealloc(Vocab *self) {
    PyMem_Free(self->text);
    PyMem_Free(self->offset);
    PyMem_Free(self->length);
    PyMem_Free(self->tail);
    PyMem_Free(self->slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Vocab_init(Vocab *self, PyObject *args, PyObject *kwds) {
    PyObject *entries;
    static char *kwlist[] = {"entries", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &entries)) return -1;
    if (self->slots != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Vocab is already initialized");
        return -1;
    }
    PyObject *seq = PySequence_Fast(entries, "Vocab() takes a sequence of str");
    if (seq == NULL) return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(item)) {
            PyErr_Format(PyExc_TypeError, "Vocab entry %zd is not a str", i);
            Py_DECREF(seq);
            return -1;
        }
        total += PyUnicode_GET_LENGTH(item);
    }
    size_t nslots = 16;
    while (nslots < (size_t)count * 2) nslots <<= 1;
    self->text = PyMem_Malloc((size_t)total + 1);
    self->offset = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(count + 1));
    self->length = PyMem_Malloc((size_t)count + 1);
    self->tail = PyMem_Malloc((size_t)count + 1);
    self->slots = PyMem_Calloc(nslots, sizeof(int32_t));
    if (!self->text || !self->offset || !self->length || !self->tail || !self->slots) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    self->mask = nslots - 1;
    self->longest = 0;
    Py_ssize_t used = 0, kept = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t size;
        const char *s = PyUnicode_AsUTF8AndSize(item, &size);
        if (s == NULL) {
            Py_DECREF(seq);
            return -1;
        }
        if (!PyUnicode_IS_ASCII(item)) continue; /* an ASCII word never matches these */
        int tail = size >= 2 && s[0] == '#' && s[1] == '#';
        if (tail) {
            s += 2;
            size -= 2;
        }
        if (size == 0 || size > 255 || vocab_has(self, s, size, tail)) continue;
        memcpy(self->text + used, s, (size_t)size);
        self->offset[kept] = used;
        self->length[kept] = (uint8_t)size;
        self->tail[kept] = (uint8_t)tail;
        size_t slot = (size_t)hash_piece(s, size, tail) & self->mask;
        while (self->slots[slot] != 0) slot = (slot + 1) & self->mask;
        self->slots[slot] = (int32_t)(kept + 1);
        if (size > self->longest) self->longest = size;
        used += size;
        kept++;
    }
    Py_DECREF(seq);
    return 0;
}

static PyTypeObject VocabType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ragkit.splitters._wordpiece_c.Vocab",
    .tp_doc = PyDoc_STR("Vocab(entries): the ASCII entries of a WordPiece vocabulary, for windows()."),
    .tp_basicsize = sizeof(Vocab),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Vocab_init,
    .tp_dealloc = (destructor)Vocab_dealloc,
};

/* -- growable arrays of positions -------------------------------------------------------- */

typedef struct {
    Py_ssize_t *v;
    Py_ssize_t n, cap;
} Positions;

static int positions_push(Positions *p, Py_ssize_t x) {
    if (p->n == p->cap) {
        Py_ssize_t cap = p->cap ? p->cap * 2 : 64;
        Py_ssize_t *v = PyMem_Realloc(p->v, sizeof(Py_ssize_t) * (size_t)cap);
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = x;
    return 0;
}

/* -- the window bookkeeping: one call per token, in order -------------------------------- */

typedef struct {
    Py_ssize_t size, step;
    Py_ssize_t count;    /* tokens seen */
    Py_ssize_t last_end; /* end of the last token */
    Positions starts;    /* starts[k]: start of token k * step */
    Positions ends;      /* ends[k]: end of token k * step + size - 1 (last token of a full window) */
} Windows;

static int take_token(Windows *w, Py_ssize_t start, Py_ssize_t end) {
    Py_ssize_t t = w->count++;
    w->last_end = end;
    if (t % w->step == 0 && positions_push(&w->starts, start) < 0) return -1;
    if (t + 1 >= w->size && (t + 1 - w->size) % w->step == 0 && positions_push(&w->ends, end) < 0) return -1;
    return 0;
}

/* LangChain's loop: windows start at 0, step, 2 step, ... and stop after the one reaching the end */
static PyObject *windows_list(const Windows *w) {
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (Py_ssize_t k = 0; k * w->step < w->count; k++) {
        Py_ssize_t full_end = k * w->step + w->size;
        Py_ssize_t end = full_end >= w->count ? w->last_end : w->ends.v[k];
        PyObject *pair = Py_BuildValue("(nn)", w->starts.v[k], end);
        if (pair == NULL || PyList_Append(out, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(pair);
        if (full_end >= w->count) break;
    }
    return out;
}

/* -- WordPiece of one printable-ASCII word ----------------------------------------------- */

/* Tokens of text[ws:we] (printable ASCII); -1 on error. */
static int ascii_word(const Vocab *v, int kind, const void *data, Py_ssize_t ws, Py_ssize_t we, Windows *w) {
    Py_ssize_t n = we - ws;
    if (n > MAX_WORD_CHARS) return take_token(w, ws, we);
    char lower[MAX_WORD_CHARS];
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, ws + i);
        lower[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    Py_ssize_t cut[MAX_WORD_CHARS + 1]; /* piece j is lower[cut[j] : cut[j + 1]] */
    Py_ssize_t pieces = 0, start = 0;
    cut[0] = 0;
    while (start < n) {
        Py_ssize_t end = n - start > v->longest ? start + v->longest : n;
        while (end > start && !vocab_has(v, lower + start, end - start, start > 0)) end--;
        if (end == start) return take_token(w, ws, we); /* cannot be covered: [UNK] */
        cut[++pieces] = end;
        start = end;
    }
    for (Py_ssize_t j = 0; j < pieces; j++)
        if (take_token(w, ws + cut[j], ws + cut[j + 1]) < 0) return -1;
    return 0;
}

/* -- any other word: its spans from the `known` dict ------------------------------------- */

/* 0: taken, 1: not known yet (added to `missing`), -1: error */
static int known_word(PyObject *text, Py_ssize_t ws, Py_ssize_t we, PyObject *known, PyObject *missing, Windows *w) {
    PyObject *word = PyUnicode_Substring(text, ws, we);
    if (word == NULL) return -1;
    PyObject *spans = PyDict_GetItemWithError(known, word); /* borrowed */
    if (spans == NULL) {
        int rc = PyErr_Occurred() ? -1 : (PySet_Add(missing, word) < 0 ? -1 : 1);
        Py_DECREF(word);
        return rc;
    }
    Py_DECREF(word);
    if (!PyTuple_Check(spans)) {
        PyErr_SetString(PyExc_TypeError, "known spans must be a tuple of (start, end) tuples");
        return -1;
    }
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(spans); j++) {
        PyObject *span = PyTuple_GET_ITEM(spans, j);
        if (!PyTuple_Check(span) || PyTuple_GET_SIZE(span) != 2) {
            PyErr_SetString(PyExc_TypeError, "a known span is not a (start, end) tuple");
            return -1;
        }
        Py_ssize_t a = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 0));
        Py_ssize_t b = PyLong_AsSsize_t(PyTuple_GET_ITEM(span, 1));
        if ((a == -1 || b == -1) && PyErr_Occurred()) return -1;
        if (take_token(w, ws + a, ws + b) < 0) return -1;
    }
    return 0;
}

/* -- the pass over the text -------------------------------------------------------------- */

static PyObject *windows(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *text, *vocab_obj, *known;
    Py_buffer classes;
    Py_ssize_t size, step;
    if (!PyArg_ParseTuple(args, "UO!y*O!nn", &text, &VocabType, &vocab_obj, &classes, &PyDict_Type, &known,
                          &size, &step))
        return NULL;
    const Vocab *v = (const Vocab *)vocab_obj;
    const uint8_t *table = classes.buf;
    Py_ssize_t table_len = classes.len;
    PyObject *missing = NULL, *result = NULL;
    Windows w = {.size = size, .step = step};
    if (size < 1 || step < 1) {
        PyErr_SetString(PyExc_ValueError, "size and step must be positive");
        goto done;
    }
    missing = PySet_New(NULL);
    if (missing == NULL) goto done;

    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        int cls = c < (Py_UCS4)table_len ? table[c] : CLS_WORD;
        if (cls == CLS_SPACE) {
            i++;
            continue;
        }
        Py_ssize_t ws = i;
        int plain = c >= 0x20 && c < 0x7f; /* printable ASCII: tokenized here */
        if (cls == CLS_SINGLE) {
            i++;
        } else {
            for (i++; i < n; i++) {
                Py_UCS4 d = PyUnicode_READ(kind, data, i);
                int dcls = d < (Py_UCS4)table_len ? table[d] : CLS_WORD;
                if (dcls != CLS_WORD) break;
                plain &= d >= 0x20 && d < 0x7f;
            }
        }
        int rc;
        if (plain && cls == CLS_SINGLE)
            rc = take_token(&w, ws, i); /* ASCII punctuation: one token */
        else if (plain)
            rc = ascii_word(v, kind, data, ws, i, &w);
        else
            rc = known_word(text, ws, i, known, missing, &w);
        if (rc < 0) goto done;
    }
    if (PySet_GET_SIZE(missing) > 0) {
        PyObject *words = PySequence_List(missing);
        if (words != NULL) result = Py_BuildValue("([]N)", words);
    } else {
        PyObject *list = windows_list(&w);
        if (list != NULL) result = Py_BuildValue("(N[])", list);
    }
done:
    PyBuffer_Release(&classes);
    Py_XDECREF(missing);
    PyMem_Free(w.starts.v);
    PyMem_Free(w.ends.v);
    return result;
}

static PyMethodDef methods[] = {
    {"windows", windows, METH_VARARGS,
     PyDoc_STR("windows(text, vocab, classes, known, size, step) -> (windows, missing words)")},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_wordpiece_c",
    .m_doc = "Token windows of BERT WordPiece (see _wordpiece_fast, which supplies the real classes).\n"
             "\n"
             "Example:\n"
             "    >>> classes = bytes(1 if c == 32 else 0 for c in range(128))  # only ' ' separates\n"
             "    >>> windows(\"Unaffable un\", Vocab([\"un\", \"##aff\", \"##able\"]), classes, {}, 2, 2)\n"
             "    ([(0, 5), (5, 12)], [])\n",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__wordpiece_c(void) {
    if (PyType_Ready(&VocabType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&VocabType);
    if (PyModule_AddObject(m, "Vocab", (PyObject *)&VocabType) < 0) {
        Py_DECREF(&VocabType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
