/*
 * The unit-test runner.  The table of cases is generated from the TEST()
 * and TEST_ON_REQUEST() markers (see test.h and the Makefile).
 * Arguments select cases by substring; without any, every case but the
 * TEST_ON_REQUEST() ones runs.  Output is one line per case, "ok NAME", "FAIL NAME" or
 * "skip NAME: why" (SKIP in test.h), then "N passed, N failed, N skipped";
 * the exit status is 1 when anything failed or when no case ran at all.
 * Each case runs in a child process: a case that crashes (a check that
 * failed, then a read of what the failed call left unset) is that case's
 * FAIL with its signal, and the others still run and are counted.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#include <sys/wait.h>
#include <unistd.h>

#include "record/sink.h"
#include "store/store.h"
#include "util/buf.h"

int test_failures;
const char *test_skipped;

#define X(name) void test_##name(void);
#define Y(name) void test_##name(void);
#include "unit_cases.h"
#undef X
#undef Y

static const struct {
	const char *name;
	void (*fn)(void);
	int on_request; /* TEST_ON_REQUEST(): only when an argument asks */
} cases[] = {
#define X(name) {#name, test_##name, 0},
#define Y(name) {#name, test_##name, 1},
#include "unit_cases.h"
#undef X
#undef Y
};

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "  %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	test_failures++;
}

const char *test_fixture(const char *name)
{
	static char path[4096];
	const char *dir = getenv("HS_FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "fixtures", name);
	return path;
}

char *test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct buf b = BUF_INIT;
	char chunk[65536];
	size_t n;

	*len = 0;
	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	buf_addch(&b, '\0');
	*len = b.len - 1;
	return b.data;
}

enum { CASE_OK, CASE_FAIL, CASE_SKIP };

/* Case i, in a child; its line printed; how it ended. */
static int run_case(size_t i)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("unit-tests: fork");
		exit(1);
	}
	if (pid == 0) {
		int rc = CASE_OK;

		test_failures = 0;
		test_skipped = NULL;
		cases[i].fn();
		fflush(stdout);
		if (test_failures) {
			printf("FAIL %s\n", cases[i].name);
			rc = CASE_FAIL;
		} else if (test_skipped) {
			printf("skip %s: %s\n", cases[i].name, test_skipped);
			rc = CASE_SKIP;
		} else {
			printf("ok %s\n", cases[i].name);
		}
		/* exit, not _exit: the sanitizers' leak check runs at exit,
		 * and a leak is then this case's failure */
		exit(rc);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("unit-tests: waitpid");
			exit(1);
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) <= CASE_SKIP)
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		printf("FAIL %s (killed by signal %d)\n", cases[i].name,
		       WTERMSIG(status));
	else
		printf("FAIL %s (exit status %d)\n", cases[i].name,
		       WEXITSTATUS(status));
	return CASE_FAIL;
}

static int selected(size_t c, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return !cases[c].on_request;
	for (i = 1; i < argc; i++)
		if (strstr(cases[c].name, argv[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;
	int passed = 0, failed = 0, skipped = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!selected(i, argc, argv))
			continue;
		switch (run_case(i)) {
		case CASE_FAIL:
			failed++;
			break;
		case CASE_SKIP:
			skipped++;
			break;
		default:
			passed++;
		}
		fflush(stdout);
	}
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed || passed == 0 ? 1 : 0;
}

struct store *test_store_commit_at(const char *file, int line,
				   struct store_writer *w, const char *dir,
				   const char *name)
{
	struct store *s = NULL;
	char path[256];
	struct err e;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err_init(&e);
	if (store_writer_commit(w, path, &e) < 0 ||
	    store_open(path, &s, &e) < 0) {
		test_fail(file, line, "store %s: %s", path, e.msg);
		s = NULL;
	}
	store_writer_free(w);
	return s;
}

void test_recording_end(struct store_writer *w, int64_t start, int64_t end)
{
	const struct sink *sink = store_writer_sink(w);
	struct rec_recording rec;

	memset(&rec, 0, sizeof(rec));
	rec.source = "r.jfr";
	rec.format = "jfr";
	rec.start_ns = start;
	rec.end_ns = end;
	rec.n_chunks = 1;
	sink->ops->recording(sink->ctx, &rec);
}

struct store *test_recording_commit_at(const char *file, int line,
				       struct store_writer *w, int64_t start,
				       int64_t end, const char *dir,
				       const char *name)
{
	test_recording_end(w, start, end);
	return test_store_commit_at(file, line, w, dir, name);
}

uint64_t test_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

void test_store_remove(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	rmdir(dir);
}
