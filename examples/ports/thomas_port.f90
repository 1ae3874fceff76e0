! examples/ports/thomas_port.f90 -- the Thomas port in Fortran, exported
! through ISO_C_BINDING as the C entry point `tridlab validate --lib`
! loads (docs/ports.md):
!
!   int SYMBOL(int dtype, int periodic, int64_t n, int64_t nsys,
!              const double *a, const double *b, const double *c,
!              const double *d, double *x);
!
! Complex entries arrive as pairs of doubles, which is exactly Fortran's
! complex(c_double_complex), so the arrays are read through c_f_pointer.
! port_thomas_f is right; port_thomas_f_conj conjugates the multiplier
! (the bug the validation must catch on the complex types).
module thomas_port_f
  use, intrinsic :: iso_c_binding
  implicit none
contains

  ! One system in complex arithmetic; returns 0, 1 (not dominant) or -2.
  integer function thomas_one(n, a, b, c, d, x, conj_bug) result(st)
    integer(c_int64_t), intent(in) :: n
    complex(c_double_complex), intent(in) :: a(n), b(n), c(n), d(n)
    complex(c_double_complex), intent(out) :: x(n)
    logical, intent(in) :: conj_bug
    complex(c_double_complex) :: bp(n), w
    integer(c_int64_t) :: i
    logical :: rows, cols
    st = 0
    bp(1) = b(1)
    x(1) = d(1)
    do i = 2, n
      if (bp(i - 1) == (0.0_c_double, 0.0_c_double)) then
        st = -2
        return
      end if
      w = a(i) / bp(i - 1)
      if (conj_bug) w = conjg(w)   ! the bug: as if the multiplier were real
      bp(i) = b(i) - w * c(i - 1)
      x(i) = d(i) - w * x(i - 1)
    end do
    if (bp(n) == (0.0_c_double, 0.0_c_double)) then
      st = -2
      return
    end if
    x(n) = x(n) / bp(n)
    do i = n - 1, 1, -1
      x(i) = (x(i) - c(i) * x(i + 1)) / bp(i)
    end do
    ! Weak dominance by rows or columns: else no guarantee, say so.
    rows = .true.
    cols = .true.
    do i = 1, n
      rows = rows .and. abs(b(i)) >= merge(abs(a(i)), 0.0_c_double, i > 1) &
                                     + merge(abs(c(i)), 0.0_c_double, i < n)
      cols = cols .and. abs(b(i)) >= merge(abs(c(max(i - 1, 1_c_int64_t))), 0.0_c_double, i > 1) &
                                     + merge(abs(a(min(i + 1, n))), 0.0_c_double, i < n)
    end do
    if (.not. (rows .or. cols)) st = 1
  end function thomas_one

  integer function solve(dtype, periodic, n, nsys, pa, pb, pc, pd, px, conj_bug) result(st)
    integer(c_int), value :: dtype, periodic
    integer(c_int64_t), value :: n, nsys
    type(c_ptr), value :: pa, pb, pc, pd, px
    logical, intent(in) :: conj_bug
    complex(c_double_complex), allocatable :: a(:), b(:), c(:), d(:), x(:)
    real(c_double), pointer :: r(:)
    complex(c_double_complex), pointer :: z(:)
    integer(c_int64_t) :: s, o, cnt
    integer :: one
    if (periodic /= 0 .or. (dtype /= 1 .and. dtype /= 2)) then
      st = -4
      return
    end if
    cnt = n * nsys
    allocate (a(cnt), b(cnt), c(cnt), d(cnt), x(cnt))
    call load(pa, a)
    call load(pb, b)
    call load(pc, c)
    call load(pd, d)
    st = 0
    do s = 0, nsys - 1
      o = s * n
      one = thomas_one(n, a(o + 1:o + n), b(o + 1:o + n), c(o + 1:o + n), d(o + 1:o + n), &
                       x(o + 1:o + n), conj_bug)
      if (one < 0) then
        st = one
        return
      end if
      st = max(st, one)
    end do
    if (dtype == 2) then
      call c_f_pointer(px, z, [cnt])
      z = x
    else
      call c_f_pointer(px, r, [cnt])
      r = real(x, c_double)
    end if
  contains
    subroutine load(p, v)
      type(c_ptr), value :: p
      complex(c_double_complex), intent(out) :: v(:)
      if (dtype == 2) then
        call c_f_pointer(p, z, [cnt])
        v = z
      else
        call c_f_pointer(p, r, [cnt])
        v = cmplx(r, 0.0_c_double, c_double_complex)
      end if
    end subroutine load
  end function solve

  integer(c_int) function port_thomas_f(dtype, periodic, n, nsys, a, b, c, d, x) &
      bind(C, name="port_thomas_f")
    integer(c_int), value :: dtype, periodic
    integer(c_int64_t), value :: n, nsys
    type(c_ptr), value :: a, b, c, d, x
    port_thomas_f = solve(dtype, periodic, n, nsys, a, b, c, d, x, .false.)
  end function port_thomas_f

  integer(c_int) function port_thomas_f_conj(dtype, periodic, n, nsys, a, b, c, d, x) &
      bind(C, name="port_thomas_f_conj")
    integer(c_int), value :: dtype, periodic
    integer(c_int64_t), value :: n, nsys
    type(c_ptr), value :: a, b, c, d, x
    port_thomas_f_conj = solve(dtype, periodic, n, nsys, a, b, c, d, x, .true.)
  end function port_thomas_f_conj
end module thomas_port_f
