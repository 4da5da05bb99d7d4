/*
 * Unit tests for src/util/newfile.c and the temporary files' registry in
 * src/util/xalloc.c: a file written whole has no name until it is put in
 * place, a fatal signal removes what has one and ends the process by that
 * signal, and the sweep removes only what a dead writer left.  Expected
 * values come from the file system (stat, the folder's listing) and
 * wait(2)'s status, not from the code under test.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "util/buf.h"
#include "util/newfile.h"
#include "util/xalloc.h"

/* A new empty folder under $TMPDIR (or /tmp), in dir. */
static void make_dir(struct buf *dir)
{
	const char *t = getenv("TMPDIR");

	buf_init(dir);
	buf_addf(dir, "%s/hs-newfile.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir->data))
		die("mkdtemp %s: %s", dir->data, strerror(errno));
}

/* The names in dir but "." and "..", sorted, each followed by a space. */
static void listing(const char *dir, struct buf *out)
{
	struct dirent **ents;
	int n, i;

	buf_reset(out);
	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (strcmp(ents[i]->d_name, ".") &&
		    strcmp(ents[i]->d_name, ".."))
			buf_addf(out, "%s ", ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

static void remove_dir(struct buf *dir)
{
	struct dirent **ents;
	int n, i;

	n = scandir(dir->data, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		struct buf p = BUF_INIT;

		buf_addf(&p, "%s/%s", dir->data, ents[i]->d_name);
		if (strcmp(ents[i]->d_name, ".") &&
		    strcmp(ents[i]->d_name, ".."))
			unlink(p.data);
		buf_release(&p);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	rmdir(dir->data);
	buf_release(dir);
}

static void write_all(int fd, const char *s)
{
	size_t len = strlen(s);

	if (write(fd, s, len) != (ssize_t)len)
		die("write: %s", strerror(errno));
}

static void file_text(const char *path, struct buf *out)
{
	char b[256];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof(b)) : -1;

	buf_reset(out);
	if (n > 0)
		buf_add(out, b, (size_t)n);
	if (fd >= 0)
		close(fd);
}

/* Nameless (where the file system allows), or named from the start with
 * HEAPSIFT_NO_TMPFILE: either way nothing but the target after the
 * commit, holding what was written. */
TEST(newfile_commit_puts_the_whole_file_in_place)
{
	struct buf dir, target = BUF_INIT, names = BUF_INIT, text = BUF_INIT;
	struct newfile nf;
	int round;

	make_dir(&dir);
	buf_addf(&target, "%s/out.txt", dir.data);
	for (round = 0; round < 2; round++) {
		if (round)
			setenv("HEAPSIFT_NO_TMPFILE", "1", 1);
		CHECK_INT(newfile_open(&nf, target.data, 0644), ==, 0);
		CHECK(nf.fd >= 0);
		CHECK(nf.named == (round == 1));
		/* nothing in the folder while it has no name */
		listing(dir.data, &names);
		if (!nf.named)
			CHECK_STR(names.data, "");
		write_all(nf.fd, round ? "second\n" : "first\n");
		CHECK_INT(newfile_commit(&nf, target.data), ==, 0);
		CHECK_INT(nf.fd, ==, -1);
		listing(dir.data, &names);
		CHECK_STR(names.data, "out.txt ");
		file_text(target.data, &text);
		CHECK_STR(text.data, round ? "second\n" : "first\n");
	}
	unsetenv("HEAPSIFT_NO_TMPFILE");
	buf_release(&names);
	buf_release(&text);
	buf_release(&target);
	remove_dir(&dir);
}

/* The name a file gets is the documented pattern, beside the target;
 * abandoned, nothing is left, and the target is untouched. */
TEST(newfile_name_then_abandon_leaves_nothing)
{
	struct buf dir, target = BUF_INIT, names = BUF_INIT, want = BUF_INIT;
	struct newfile nf;
	const char *doing;
	const char *base;
	unsigned flags;

	make_dir(&dir);
	buf_addf(&target, "%s/S.hsdb", dir.data);
	for (flags = 0; flags <= NEWFILE_COPY; flags += NEWFILE_COPY) {
		CHECK_INT(newfile_open(&nf, target.data, 0600), ==, 0);
		write_all(nf.fd, "data");
		CHECK_INT(newfile_name(&nf, target.data, flags, &doing), ==, 0);
		CHECK(nf.named);
		base = strrchr(nf.tmp.data, '/');
		CHECK(base != NULL);
		buf_reset(&want);
		buf_addf(&want, "/.S.hsdb.tmp%ld.", (long)getpid());
		CHECK(base && !strncmp(base, want.data, want.len));
		listing(dir.data, &names);
		buf_reset(&want);
		buf_addf(&want, "%s ", base ? base + 1 : "");
		CHECK_STR(names.data, want.data);
		newfile_abandon(&nf);
		listing(dir.data, &names);
		CHECK_STR(names.data, "");
	}
	buf_release(&names);
	buf_release(&want);
	buf_release(&target);
	remove_dir(&dir);
}

/* A child registers a file, then gets sig: the file is gone, and the
 * child ended by sig (or, ignored, goes on and exits 0). */
static void signal_child(const char *dir, int sig, bool ignored, int *status,
			 bool *left)
{
	struct buf path = BUF_INIT;
	pid_t pid;

	buf_addf(&path, "%s/.x.tmp1.a.0", dir);
	pid = fork();
	if (pid == 0) {
		struct rlimit no_core = {0, 0};
		int fd = open(path.data, O_WRONLY | O_CREAT | O_EXCL, 0600);

		setrlimit(RLIMIT_CORE, &no_core); /* SIGQUIT and the like */
		if (ignored)
			signal(sig, SIG_IGN);
		else
			signal(sig, SIG_DFL);
		if (fd < 0)
			_exit(90);
		die_unlink_add(path.data);
		raise(sig);
		die_unlink_remove(path.data);
		_exit(0);
	}
	waitpid(pid, status, 0);
	*left = access(path.data, F_OK) == 0;
	unlink(path.data);
	buf_release(&path);
}

TEST(fatal_signal_removes_registered_files_and_ends_by_it)
{
	static const int sigs[] = {SIGHUP,  SIGINT,  SIGQUIT,	SIGTERM,
				   SIGPIPE, SIGALRM, SIGUSR1,	SIGUSR2,
				   SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF};
	struct buf dir;
	size_t i;

	make_dir(&dir);
	for (i = 0; i < sizeof(sigs) / sizeof(*sigs); i++) {
		int status;
		bool left;

		signal_child(dir.data, sigs[i], false, &status, &left);
		CHECK(!left);
		CHECK(WIFSIGNALED(status));
		CHECK_INT(WIFSIGNALED(status) ? WTERMSIG(status) : -1, ==,
			  sigs[i]);
		/* ignored when it started: stays ignored, nothing removed
		 * by it */
		signal_child(dir.data, sigs[i], true, &status, &left);
		CHECK(left);
		CHECK(WIFEXITED(status));
		CHECK_INT(WIFEXITED(status) ? WEXITSTATUS(status) : -1, ==, 0);
	}
	remove_dir(&dir);
}

/* Once nothing is registered, the actions found before are back. */
TEST(fatal_signal_handler_only_while_files_are_registered)
{
	struct sigaction sa;

	CHECK_INT(sigaction(SIGTERM, NULL, &sa), ==, 0);
	CHECK(sa.sa_handler == SIG_DFL);
	die_unlink_add("/nonexistent/a");
	die_unlink_add("/nonexistent/b");
	CHECK_INT(sigaction(SIGTERM, NULL, &sa), ==, 0);
	CHECK(sa.sa_handler != SIG_DFL);
	die_unlink_remove("/nonexistent/a");
	CHECK_INT(sigaction(SIGTERM, NULL, &sa), ==, 0);
	CHECK(sa.sa_handler != SIG_DFL);
	die_unlink_remove("/nonexistent/b");
	CHECK_INT(sigaction(SIGTERM, NULL, &sa), ==, 0);
	CHECK(sa.sa_handler == SIG_DFL);
}

/* Make path with mtime age seconds ago; the fd, locked when asked. */
static int plant(const char *dir, const char *name, long age, bool lock)
{
	struct buf p = BUF_INIT;
	struct timeval tv[2];
	int fd;

	buf_addf(&p, "%s/%s", dir, name);
	fd = open(p.data, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die("open %s: %s", p.data, strerror(errno));
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= age;
	tv[1] = tv[0];
	futimes(fd, tv);
	if (lock)
		flock(fd, LOCK_EX);
	buf_release(&p);
	return fd;
}

/* The sweep removes an unlocked, old file of the pattern whose PID is
 * dead, and nothing else. */
TEST(newfile_sweep_removes_only_a_dead_writers_old_file)
{
	struct buf dir, names = BUF_INIT, name = BUF_INIT;
	pid_t dead = fork();
	int locked_fd, fd;

	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	make_dir(&dir);
#define PLANT(age, lock, ...)                               \
	do {                                                \
		buf_reset(&name);                           \
		buf_addf(&name, __VA_ARGS__);               \
		fd = plant(dir.data, name.data, age, lock); \
	} while (0)
	PLANT(700, false, ".S.hsdb.tmp%ld.1f.0", (long)dead); /* stale */
	close(fd);
	PLANT(700, false, ".a b.csv.tmp%ld.abc.12", (long)dead); /* stale */
	close(fd);
	PLANT(60, false, ".young.hsdb.tmp%ld.1f.0", (long)dead);
	close(fd);
	/* a lock held in this process: another open file description
	 * (the sweep's) cannot take it */
	PLANT(700, true, ".locked.hsdb.tmp%ld.1f.0", (long)dead);
	locked_fd = fd;
	PLANT(700, false, ".alive.hsdb.tmp%ld.1f.0", (long)getpid());
	close(fd);
	PLANT(700, false, ".nonce.hsdb.tmp%ld.xyz.0", (long)dead);
	close(fd);
	PLANT(700, false, "plain.hsdb.tmp%ld.1f.0", (long)dead);
	close(fd);
	PLANT(700, false, ".notes.tmp");
	close(fd);
	PLANT(700, false, "..tmp%ld.1f.0", (long)dead);
	close(fd);
	PLANT(700, false, ".S.hsdb.tmp%ld.1f.", (long)dead);
	close(fd);
	CHECK_UINT(newfile_sweep(dir.data), ==, 2);
	listing(dir.data, &names);
	buf_reset(&name);
	buf_addf(&name,
		 "..tmp%ld.1f.0 .S.hsdb.tmp%ld.1f. .alive.hsdb.tmp%ld.1f.0 "
		 ".locked.hsdb.tmp%ld.1f.0 .nonce.hsdb.tmp%ld.xyz.0 "
		 ".notes.tmp .young.hsdb.tmp%ld.1f.0 plain.hsdb.tmp%ld.1f.0 ",
		 (long)dead, (long)dead, (long)getpid(), (long)dead, (long)dead,
		 (long)dead, (long)dead);
	CHECK_STR(names.data, name.data);
	/* the lock let go: removed */
	close(locked_fd);
	CHECK_UINT(newfile_sweep(dir.data), ==, 1);
#undef PLANT
	buf_release(&names);
	buf_release(&name);
	remove_dir(&dir);
}
