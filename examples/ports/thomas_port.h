/* examples/ports/thomas_port.h -- the example port's two entry points
 * (thomas_port.c), in the form `tridlab validate --lib` calls. */
#ifndef THOMAS_PORT_H
#define THOMAS_PORT_H

#include <stdint.h>

int port_thomas(int dtype, int periodic, int64_t n, int64_t nsys, const double *a, const double *b,
                const double *c, const double *d, double *x);
int port_thomas_conj(int dtype, int periodic, int64_t n, int64_t nsys, const double *a,
                     const double *b, const double *c, const double *d, double *x);

#endif
