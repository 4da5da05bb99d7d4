/*
 * heapsift agent-path: where libheapsift-agent.so is, for
 * `java -agentpath:$(heapsift agent-path)=file=...`.  It looks where
 * paths_find_runtime() looks (beside the binary, build/ beside it,
 * LIBDIR/heapsift/) and loads nothing: whether the JVM accepts the
 * library is the JVM's to say.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "util/buf.h"
#include "util/paths.h"
#include "util/term.h"

#define AGENT_LIB "libheapsift-agent.so"

static const char agent_path_help[] =
	"usage: heapsift agent-path\n"
	"\n"
	"Print the absolute path of the heapsift JVMTI agent, " AGENT_LIB ",\n"
	"for example to record a JVM's heap samples with\n"
	"\n"
	"  java -agentpath:$(heapsift agent-path)=file=app-%p.hsa ...\n"
	"\n"
	"It is looked for beside heapsift, in build/ beside it, then where\n"
	"make install puts it (LIBDIR/heapsift/).  docs/agent.md lists the\n"
	"agent's options.  Exit status 1 when it is not found.\n"
	"\n"
	"  -h, --help    this text\n";

const struct option agent_path_option_table[] = {
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* agent-path takes no options but --help, and no operands: nothing to
 * keep for the run. */
static int agent_path_parse(int argc, char **argv)
{
	int c;

	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", agent_path_option_table,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			return cli_help(agent_path_help);
		default:
			return cli_getopt_error("agent-path", c, argv);
		}
	}
	if (optind != argc)
		return cli_usage_error("agent-path", "takes no arguments");
	return CLI_RUN;
}

static int agent_path_run(void)
{
	struct buf path = BUF_INIT;

	if (!paths_find_runtime(AGENT_LIB, &path)) {
		term_fprintf(
			stderr,
			"heapsift agent-path: " AGENT_LIB " not found beside "
			"heapsift, in build/ or at %s; run make install (it is "
			"built only when the JDK's jvmti.h is found)\n",
			path.data);
		buf_release(&path);
		return EXIT_ERROR;
	}
	/* the path itself, not escaped: it is for -agentpath: in a shell's
	 * $(...), and it is heapsift's own install location, not a name
	 * from a file */
	printf("%s\n", path.data);
	buf_release(&path);
	return cli_finish_output(EXIT_OK);
}

int cmd_agent_path(int argc, char **argv)
{
	int rc = agent_path_parse(argc, argv);

	return rc == CLI_RUN ? agent_path_run() : rc;
}
