/*
 * The output check every writing command shares (output.h).
 */
#include "cli/output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/report.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/newfile.h"
#include "util/term.h"
#include "util/xalloc.h"

bool cli_is_store(const char *path)
{
	char magic[STORE_MAGIC_LEN];
	struct stat st;
	bool yes;
	int fd;

	/* O_NONBLOCK: a fifo must not hang the check; only a regular
	 * file can be a store */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	      read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	      !memcmp(magic, STORE_MAGIC, STORE_MAGIC_LEN);
	close(fd);
	return yes;
}

bool cli_is_report(const char *path)
{
	char head[REPORT_MARK_SPAN];
	struct stat st;
	ssize_t got;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
		      ? read(fd, head, sizeof(head))
		      : -1;
	close(fd);
	if (got <= 0)
		return false;
	/* the mark, never words a person may write about a report */
	return memmem(head, (size_t)got, REPORT_MARK, strlen(REPORT_MARK)) !=
	       NULL;
}

int cli_output_arg(const char *cmd, const char *arg, const char *what)
{
	/* an empty path would reach open() and rename() as "" and be
	 * said as a missing file, with a blank where the name goes */
	if (*arg)
		return 0;
	return cli_usage_error(cmd, "-o: the path is empty: give %s", what);
}

static int refuse(const char *cmd, const char *path, const char *why,
		  const char *hint)
{
	term_fprintf(stderr, "heapsift %s: error: %s %s; not replaced%s%s\n",
		     cmd, path, why, hint ? "; " : "", hint ? hint : "");
	return EXIT_ERROR;
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "is a folder";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "is a device";
	if (S_ISFIFO(m))
		return "is a fifo";
	if (S_ISSOCK(m))
		return "is a socket";
	return "is not a regular file";
}

/* Is name one of ours, or a leftover temporary ".NAME.tmp..." of one? */
static bool own_name(const char *const *names, const char *name)
{
	size_t i, n;

	for (i = 0; names && names[i]; i++) {
		n = strlen(names[i]);
		if (!strcmp(name, names[i]))
			return true;
		/* "recording=*": every name with that prefix */
		if (n && names[i][n - 1] == '*' &&
		    !strncmp(name, names[i], n - 1))
			return true;
		if (name[0] == '.' && !strncmp(name + 1, names[i], n) &&
		    !strncmp(name + 1 + n, ".tmp", 4))
			return true;
	}
	return false;
}

/* The first entry of folder path that the command does not write, into
 * *other (NULL when there is none); -1 when it cannot be read. */
static int folder_other(const char *path, const char *const *names, char *other,
			size_t size)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return -1;
	other[0] = '\0';
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!own_name(names, de->d_name)) {
			snprintf(other, size, "%s", de->d_name);
			break;
		}
	}
	closedir(d);
	return 0;
}

static int check_inputs(const char *cmd, const char *path,
			const struct stat *out, char *const *inputs,
			int n_inputs)
{
	struct stat st;
	int i, rc;

	for (i = 0; i < n_inputs; i++) {
		rc = strcmp(inputs[i], "-") ? stat(inputs[i], &st)
					    : fstat(STDIN_FILENO, &st);
		if (rc == 0 && st.st_dev == out->st_dev &&
		    st.st_ino == out->st_ino) {
			term_fprintf(stderr,
				     "heapsift %s: error: the output %s is the "
				     "input %s; not replaced (not even with "
				     "--force)\n",
				     cmd, path, inputs[i]);
			return EXIT_ERROR;
		}
	}
	return 0;
}

int cli_output_check(const char *cmd, const struct cli_output *o,
		     char *const *inputs, int n_inputs)
{
	const char *path = o->path;
	struct stat st;
	char other[256];

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		term_fprintf(stderr, "heapsift %s: error: %s: %s\n", cmd, path,
			     strerror(errno));
		return EXIT_ERROR;
	}
	if (S_ISLNK(st.st_mode))
		return refuse(cmd, path, "is a symbolic link",
			      "give the path it points to, or remove the "
			      "link (not even --force replaces a link)");
	if (o->kind == CLI_OUTPUT_FILE) {
		if (!S_ISREG(st.st_mode))
			return refuse(cmd, path, kind_of(st.st_mode),
				      "heapsift writes an export only as a "
				      "regular file (not even --force "
				      "replaces this)");
		if (check_inputs(cmd, path, &st, inputs, n_inputs))
			return EXIT_ERROR;
		if (o->force)
			return 0;
		return refuse(cmd, path, "exists", "--force replaces it");
	}
	if (o->kind == CLI_OUTPUT_STORE || o->kind == CLI_OUTPUT_REPORT) {
		bool report = o->kind == CLI_OUTPUT_REPORT;

		if (!S_ISREG(st.st_mode))
			return refuse(
				cmd, path, kind_of(st.st_mode),
				report ? "heapsift writes a report only "
					 "as a regular file (not even "
					 "--force replaces this)"
				       : "heapsift writes a store only as "
					 "a regular file (not even "
					 "--force replaces this)");
		if (check_inputs(cmd, path, &st, inputs, n_inputs))
			return EXIT_ERROR;
		if (o->force ||
		    (report ? cli_is_report(path) : cli_is_store(path)))
			return 0;
		return refuse(cmd, path,
			      report ? "exists and is not a heapsift report"
				     : "exists and is not a heapsift store",
			      "--force replaces it");
	}
	if (!S_ISDIR(st.st_mode))
		return refuse(cmd, path,
			      S_ISREG(st.st_mode) ? "is a file, not a folder"
						  : kind_of(st.st_mode),
			      "give a folder, or a path that does not exist "
			      "(not even --force replaces this)");
	if (check_inputs(cmd, path, &st, inputs, n_inputs))
		return EXIT_ERROR;
	if (folder_other(path, o->names, other, sizeof(other)) < 0) {
		term_fprintf(stderr, "heapsift %s: error: %s: %s\n", cmd, path,
			     strerror(errno));
		return EXIT_ERROR;
	}
	if (other[0] && !o->force) {
		term_fprintf(
			stderr,
			"heapsift %s: error: the folder %s holds %s, which "
			"heapsift %s does not write; give an empty or new "
			"folder, or --force to write into it anyway (other "
			"files are left alone)\n",
			cmd, path, other, cmd);
		return EXIT_ERROR;
	}
	return 0;
}

int cli_write_file(const char *cmd, const char *path, const void *data,
		   size_t len)
{
	struct newfile nf;
	const char *p = data;
	int errnum = 0;

	/* without a name until it is whole, where the file system allows
	 * (newfile.h) */
	if (newfile_open(&nf, path, 0644) < 0)
		errnum = errno;
	while (!errnum && len) {
		ssize_t n = write(nf.fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errnum = n < 0 ? errno : EIO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (errnum)
		newfile_abandon(&nf);
	else if (newfile_commit(&nf, path) < 0)
		errnum = errno;
	if (errnum) {
		term_fprintf(stderr,
			     "heapsift %s: error: cannot write %s: %s\n", cmd,
			     path, err_io_reason(errnum));
		return -1;
	}
	return 0;
}
