/* SPDX-License-Identifier: Apache-2.0 */
#pragma once

/*
 * Kubernetes-style resource quantities as appc uses them: an optional sign, a decimal number
 * ("1", "1.5", ".5"), and an optional suffix: n u m k M G T P E (powers of ten), Ki Mi Gi Ti
 * Pi Ei (powers of two), or an exponent e<int>/E<int>.
 */

#include <stdbool.h>
#include <stdint.h>

/* True if s follows the quantity grammar (appc's resource.ParseQuantity). */
bool quantity_is_valid(const char *s);

/*
 * The value in base units, rounded up ("500m" bytes -> 1). -EINVAL: not a quantity or
 * negative; -ERANGE: does not fit 64 bits.
 */
int quantity_to_bytes(const char *s, uint64_t *ret);
/* The value in thousandths ("250m" -> 250, "1" -> 1000, "0.5" -> 500), rounded up. */
int quantity_to_millis(const char *s, uint64_t *ret);
