/*
 * heapsift tree: the call tree of the estimated allocations, from the
 * outermost callers in, or with --inverted from the allocating frames
 * out to their callers.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_view.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/human.h"
#include "util/term.h"
#include "util/xalloc.h"

static const char tree_help[] =
	"usage: heapsift tree CASE.hsdb|INPUT... [--inverted] [--depth=N] "
	"[--min-share=P] [--csv] [FILTERS]\n"
	"\n"
	"The call tree of the estimated allocations: each node's total is\n"
	"what was allocated in its subtree, with its share of the whole and\n"
	"of its parent.  --inverted starts at the allocating frames and\n"
	"goes out to their callers.\n"
	"\n" CLI_STORE_OPERAND_HELP "\n"
	"      --inverted       start at the allocation sites\n"
	"      --depth=N        show N levels (default 12; 0: all)\n"
	"      --min-share=P    hide nodes under P percent of the total\n"
	"                       (default 0.5)\n"
	"      --csv            RFC 4180 CSV, one row per node shown:\n"
	"                       path,depth,frame,samples,est_bytes,share,\n"
	"                       parent_share,self_samples,self_bytes,\n"
	"                       rel_err (the ± of est_bytes, as top's)\n"
	"                       (path: the frames from the root, "
	"';'-separated)\n"
	"  -h, --help           this text\n"
	"\n" VIEW_FILTER_HELP VIEW_FRAME_HELP;

struct printer {
	const struct query_tree_node *nodes;
	int64_t total;
	uint32_t max_depth;
	double min_share;
	bool csv;
	struct buf path, line;
};

/* A node's share of the whole and of its parent: by estimated bytes, or
 * by samples where the kind carries no sizes (OldObjectSample before
 * JDK 21), so that the tree still shows where the samples are. */
static void shares(const struct printer *p, uint32_t i, double *share,
		   double *pshare)
{
	const struct query_tree_node *nd = &p->nodes[i], *up;
	bool bytes = p->total != 0;
	double me = bytes ? (double)nd->est_bytes : (double)nd->samples;
	double all = bytes ? (double)p->total : (double)p->nodes[0].samples;

	*share = all ? me / all : 0;
	*pshare = 1.0;
	if (nd->parent != QUERY_TREE_NONE) {
		double them;

		up = &p->nodes[nd->parent];
		them = bytes ? (double)up->est_bytes : (double)up->samples;
		*pshare = them ? me / them : 0;
	}
}

static void put_row(struct printer *p, uint32_t i)
{
	const struct query_tree_node *nd = &p->nodes[i];
	double share, pshare;

	shares(p, i, &share, &pshare);
	buf_reset(&p->line);
	if (p->csv) {
		buf_add_csv(&p->line, p->path.data, p->path.len);
		buf_addf(&p->line, ",%u,", nd->depth);
		buf_add_csv_name(&p->line, nd->label, strlen(nd->label));
		buf_addf(&p->line, ",%llu,%lld,%.6f,%.6f,%llu,%lld,",
			 (unsigned long long)nd->samples,
			 (long long)nd->est_bytes, share, pshare,
			 (unsigned long long)nd->self_samples,
			 (long long)nd->self_bytes);
		view_add_rel_err(&p->line, nd->rel_err, true);
		buf_adds(&p->line, "\r\n");
	} else {
		char tb[32];
		uint32_t k;

		double rel = nd->rel_err;

		buf_addf(&p->line, "%10s %6.2f%% %6.2f%% %8llu ",
			 human_bytes(nd->est_bytes, tb, sizeof(tb)),
			 share * 100, pshare * 100,
			 (unsigned long long)nd->samples);
		view_add_rel_err(&p->line, rel, false);
		buf_adds(&p->line, "  ");
		for (k = 0; k < nd->depth && k < 200; k++)
			buf_adds(&p->line, "  ");
		buf_add_printable(&p->line, nd->label, strlen(nd->label));
		buf_addch(&p->line, '\n');
	}
	fwrite(p->line.data, 1, p->line.len, stdout);
}

/*
 * Depth first, heaviest child first, with an explicit stack: stacks can
 * be thousands of frames deep, and a damaged store deeper still.  The
 * stack holds each node's path length so that the path can be cut back
 * when the walk returns to a sibling.
 */
static void put_tree(struct printer *p)
{
	struct item {
		uint32_t node;
		size_t path_len;
	} * stack;
	size_t top = 0, cap = 1024;

	stack = xmalloc(cap * sizeof(*stack));
	stack[top++] = (struct item){0, 0};
	while (top) {
		struct item it = stack[--top];
		const struct query_tree_node *nd = &p->nodes[it.node];
		double share, pshare;
		uint32_t c, n_kids = 0;
		size_t k;

		shares(p, it.node, &share, &pshare);
		if (it.node && share * 100.0 < p->min_share)
			continue;
		buf_setlen(&p->path, it.path_len);
		if (it.node) {
			if (p->path.len)
				buf_addch(&p->path, ';');
			buf_add_printable(&p->path, nd->label,
					  strlen(nd->label));
		}
		put_row(p, it.node);
		if (p->max_depth && nd->depth >= p->max_depth)
			continue;
		/* push the children in reverse so the heaviest pops first */
		for (c = nd->first_child; c != QUERY_TREE_NONE;
		     c = p->nodes[c].next_sibling)
			n_kids++;
		while (top + n_kids > cap) {
			cap *= 2;
			stack = xreallocarray(stack, cap, sizeof(*stack));
		}
		k = top + n_kids;
		for (c = nd->first_child; c != QUERY_TREE_NONE;
		     c = p->nodes[c].next_sibling)
			stack[--k] = (struct item){c, p->path.len};
		top += n_kids;
	}
	free(stack);
}

struct tree_options {
	struct view_filters f;
	bool inverted, csv;
	uint64_t depth;	  /* levels shown, 0: all */
	double min_share; /* percent */
	int n_operands;
	char **operands;
};

enum { OPT_INVERTED = OPT__VIEW_NEXT, OPT_DEPTH, OPT_MIN_SHARE, OPT_CSV };
const struct option tree_option_table[] = {
	{"inverted", no_argument, NULL, OPT_INVERTED},
	{"depth", required_argument, NULL, OPT_DEPTH},
	{"min-share", required_argument, NULL, OPT_MIN_SHARE},
	{"csv", no_argument, NULL, OPT_CSV},
	{"help", no_argument, NULL, 'h'},
	VIEW_FILTER_OPTIONS,
	VIEW_FRAME_OPTIONS,
	{NULL, 0, NULL, 0},
};
const struct cli_option_words tree_word_table[] = {
	VIEW_FILTER_WORDS,
	VIEW_FRAME_WORDS,
	{NULL, NULL},
};

static int tree_parse(int argc, char **argv, struct tree_options *o)
{
	int c;
	char *end;

	memset(o, 0, sizeof(*o));
	o->depth = 12;
	o->min_share = 0.5;
	view_filters_init(&o->f);
	view_frames_init(&o->f);
	cli_getopt_begin();
	while ((c = getopt_long(argc, argv, ":h", tree_option_table, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			return cli_help(tree_help);
		case OPT_INVERTED:
			o->inverted = true;
			break;
		case OPT_DEPTH:
			if (!cli_parse_count(optarg, &o->depth) ||
			    o->depth > 100000)
				return cli_usage_error("tree",
						       "--depth: '%s' is "
						       "not a whole number "
						       "from 0 (0: all) to "
						       "100000",
						       optarg);
			break;
		case OPT_MIN_SHARE:
			o->min_share = strtod(optarg, &end);
			if (end == optarg || *end || o->min_share < 0 ||
			    o->min_share > 100)
				return cli_usage_error(
					"tree",
					"--min-share: "
					"'%s' is not a percentage "
					"from 0 to 100",
					optarg);
			break;
		case OPT_CSV:
			o->csv = true;
			break;
		default:
			if (view_default_option("tree", c, argv, &o->f))
				return EXIT_USAGE;
		}
	}
	o->n_operands = argc - optind;
	o->operands = argv + optind;
	return CLI_RUN;
}

static int tree_run(struct tree_options *o)
{
	struct printer p;
	const struct query_tree_node *nodes;
	struct query_total total;
	struct store *s;
	struct query *q;
	size_t n;
	struct err e;
	int rc;

	rc = view_open_operands("tree", o->n_operands, o->operands, &o->f, &s,
				&q);
	if (rc)
		return rc;
	err_init(&e);
	if (query_tree(q, o->inverted, o->inverted ? (uint32_t)o->depth : 0,
		       &nodes, &n, &total, &e) < 0) {
		view_error("tree", &e);
		view_close(s, q);
		return EXIT_ERROR;
	}
	memset(&p, 0, sizeof(p));
	p.nodes = nodes;
	p.total = total.est_bytes;
	p.max_depth = (uint32_t)o->depth;
	p.min_share = o->min_share;
	p.csv = o->csv;
	buf_init(&p.path);
	buf_init(&p.line);
	if (p.csv) {
		fputs("path,depth,frame,samples,est_bytes,share,parent_share,"
		      "self_samples,self_bytes,rel_err\r\n",
		      stdout);
	} else {
		char tb[32];

		term_fprintf(stdout,
			     "%s tree of %s: %llu samples, %s estimated\n",
			     o->inverted ? "inverted" : "call",
			     sample_kind_name(query_kind(q)),
			     (unsigned long long)total.samples,
			     human_bytes(total.est_bytes, tb, sizeof(tb)));
		term_fprintf(stdout, "%s\n", query_estimate_note(q));
		term_fprintf(stdout, "%10s %7s %7s %8s %7s  %s\n", "EST_BYTES",
			     "TOTAL", "PARENT", "SAMPLES", "±", "FRAME");
	}
	put_tree(&p);
	buf_release(&p.path);
	buf_release(&p.line);
	view_close(s, q);
	return cli_finish_output(EXIT_OK);
}

int cmd_tree(int argc, char **argv)
{
	struct tree_options o;
	int rc = tree_parse(argc, argv, &o);

	return rc == CLI_RUN ? tree_run(&o) : rc;
}
