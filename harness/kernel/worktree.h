/* worktree.h - what lets consecutive builds of one user tree (the steps
 * of a bisection) share a work copy and an object directory. */
#ifndef KBENCH_WORKTREE_H
#define KBENCH_WORKTREE_H

/* Make DST a hard-linked mirror of the tree SRC (its top-level .git left
 * out): entries whose inode already matches are kept, others relinked,
 * entries SRC lacks removed. A file kbench patched (a different inode) is
 * put back, so DST is pristine after it. 0, or -1 after an error. */
int worktree_sync(const char *src, const char *dst);

/* After PATCH (-p1) was applied in DST, a mirror of SRC: give every file it
 * changed the mtime of SRC's file (of PATCH for a file it created), so make
 * rebuilds a patched file only when the commit changed it. 0, or -1. */
int worktree_keep_mtimes(const char *src, const char *dst, const char *patch);

/* Around `make` in the object dir OBJ: begin removes what an interrupted
 * build there may have left half-written (files newer than the previous
 * begin's stamp that kbuild's .cmd file does not vouch for), then stamps
 * OBJ; end removes the stamp after a build that finished. 0, or -1. */
int objdir_begin(const char *obj);
int objdir_end(const char *obj);

#endif
