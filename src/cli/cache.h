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

/* Whether the cache file at path (a store, or the report's inventory
 * beside it) may be used: 1 it is a regular file of the user's that no
 * one else can write, 0 it does not exist, -1 after a message "heapsift
 * CMD: error: ..." (a symbolic link, a folder, a fifo, another user's
 * file, or one others can write: never followed, never replaced). */
int cli_cache_check(const char *cmd, const char *path);

#endif
