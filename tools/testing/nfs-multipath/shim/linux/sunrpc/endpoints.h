/* SPDX-License-Identifier: GPL-2.0 */
/* The real header, found relative to this file */
#include "../../../../../../include/linux/sunrpc/endpoints.h"
