/*
 * Unit tests for src/input/folder.c: the walk of a folder given as an
 * input, on trees made here with known names, so the expected order
 * (byte order of the names, a subfolder's files in its place) and the
 * expected reports follow from how each tree was made.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input/folder.h"
#include "test.h"
#include "util/buf.h"

/* What the callbacks saw, one line each: "E rel", "F rel size",
 * "S rel why detail". */
struct seen {
	struct buf log;
	int stop_after; /* entries before stopping; 0: never */
	int n_entries;
};

static bool on_entry(void *ctx, const char *rel)
{
	struct seen *s = ctx;

	buf_addf(&s->log, "E %s\n", rel);
	return !s->stop_after || ++s->n_entries < s->stop_after;
}

static bool on_file(void *ctx, const char *rel, int fd, const struct stat *st)
{
	struct seen *s = ctx;
	char c;

	/* open for reading, and a regular file */
	buf_addf(&s->log, "F %s %lld %d\n", rel, (long long)st->st_size,
		 (int)(read(fd, &c, 1) >= 0 && S_ISREG(st->st_mode)));
	return true;
}

static void on_skipped(void *ctx, const char *rel, enum folder_skip why,
		       const char *detail)
{
	struct seen *s = ctx;

	buf_addf(&s->log, "S %s %d %s\n", rel, (int)why, detail);
}

static const struct folder_ops ops = {on_entry, on_file, on_skipped};

static void put(const char *dir, const char *rel, const char *text)
{
	struct buf p = BUF_INIT;
	FILE *f;

	buf_addf(&p, "%s/%s", dir, rel);
	f = fopen(p.data, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	buf_release(&p);
}

static char *tree(void)
{
	char tmpl[] = "/tmp/hs-folder-test.XXXXXX";
	char *dir = mkdtemp(tmpl);
	struct buf p = BUF_INIT;

	if (!dir)
		return NULL;
	dir = strdup(dir);
	/* made out of order: the walk must sort */
	buf_addf(&p, "%s/z", dir);
	mkdir(p.data, 0700);
	buf_reset(&p);
	buf_addf(&p, "%s/a", dir);
	mkdir(p.data, 0700);
	put(dir, "z/two", "22");
	put(dir, "b", "b");
	put(dir, "a/one", "1");
	put(dir, "a-b",
	    "ab"); /* sorted by name in each folder: a, its files, then a-b */
	buf_reset(&p);
	buf_addf(&p, "%s/fifo", dir);
	mkfifo(p.data, 0600);
	buf_reset(&p);
	buf_addf(&p, "%s/out", dir);
	if (symlink("/", p.data) < 0)
		perror("symlink");
	buf_reset(&p);
	buf_addf(&p, "%s/z/in", dir);
	if (symlink("../b", p.data) < 0)
		perror("symlink");
	buf_reset(&p);
	buf_addf(&p, "%s/loop", dir);
	if (symlink("loop", p.data) < 0)
		perror("symlink");
	buf_release(&p);
	return dir;
}

static void remove_tree(const char *dir)
{
	struct buf cmd = BUF_INIT;

	buf_addf(&cmd, "rm -rf '%s'", dir);
	if (system(cmd.data) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	buf_release(&cmd);
}

/* The walk of a new tree(), stopped after stop_after entries (0: never),
 * into s->log; what folder_walk() returned.  The tree is removed. */
static bool walk_tree(struct seen *s)
{
	char *dir = tree(), *real;
	bool done;
	int fd;

	CHECK(dir != NULL);
	if (!dir)
		return false;
	real = realpath(dir, NULL);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	done = folder_walk(fd, real, &ops, s);
	close(fd);
	free(real);
	remove_tree(dir);
	free(dir);
	return done;
}

TEST(folder_walk_sorted_never_leaving)
{
	struct seen s = {BUF_INIT, 0, 0};

	CHECK(walk_tree(&s));
	CHECK_STR(s.log.data, "E a\n"
			      "E a/one\n"
			      "F a/one 1 1\n"
			      "E a-b\n"
			      "F a-b 2 1\n"
			      "E b\n"
			      "F b 1 1\n"
			      "E fifo\n"
			      "E loop\n"
			      "S loop 2 loop\n"
			      "E out\n"
			      "S out 0 /\n"
			      "E z\n"
			      "E z/in\n"
			      "E z/two\n"
			      "F z/two 2 1\n");
	buf_release(&s.log);
}

TEST(folder_walk_stops_when_asked)
{
	struct seen s = {BUF_INIT, 3, 0};

	CHECK(!walk_tree(&s));
	CHECK_STR(s.log.data, "E a\nE a/one\nF a/one 1 1\nE a-b\n");
	buf_release(&s.log);
}
