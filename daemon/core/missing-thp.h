/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* THP interfaces newer than the oldest headers fragd builds against (Debian
 * 12's glibc and kernel headers lack some): the values are the kernel's uapi
 * ones (include/uapi/asm-generic/mman-common.h, include/uapi/linux/prctl.h). */

#include <sys/mman.h>
#include <sys/prctl.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#endif
#ifndef PR_GET_THP_DISABLE
#define PR_GET_THP_DISABLE 42
#endif
#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif
