/*
 * The cache store for inputs given where a store is expected (browse,
 * report): cache.c says where it lives and how it is named.
 */
#ifndef HS_CLI_CACHE_H
#define HS_CLI_CACHE_H

/* The cache store's path for these inputs (malloc'ed), the cache folder
 * made when missing; NULL after a message "heapsift CMD: error: ..."
 * (standard input cannot be cached, an input is missing, no HOME). */
char *cli_cache_path(const char *cmd, int n, char **inputs);

#endif
