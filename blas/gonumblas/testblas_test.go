package gonumblas_test

// gonum's own test suite for BLAS implementations (testblas), for every
// float64 routine, as gonum's blas/gonum runs it, on every selected
// device with both thresholds 0: the routines this package offloads are
// checked on the device (and must not fall back to the host), the others
// are gonum's, as the Implementation embeds them. testblas has no
// float32 tests; float32_test.go compares the float32 routines with
// gonum's.

import (
	"testing"

	"gonum.org/v1/gonum/blas/testblas"

	"github.com/gour-dev/gour/blas/gonumblas"
)

func TestDgemm(t *testing.T) {
	onDevices(t, f64, func(t *testing.T, impl *gonumblas.Implementation) { testblas.TestDgemm(t, impl) })
}

func TestDsymm(t *testing.T) {
	onDevices(t, f64, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DsymmTest(t, impl) })
}

func TestDtrsm(t *testing.T) {
	onDevices(t, f64, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DtrsmTest(t, impl) })
}

func TestDsyrk(t *testing.T) {
	onDevices(t, f64, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DsyrkTest(t, impl) })
}

func TestDsyr2k(t *testing.T) {
	onDevices(t, f64, func(t *testing.T, impl *gonumblas.Implementation) { testblas.Dsyr2kTest(t, impl) })
}

func TestDtrmm(t *testing.T) {
	onDevices(t, f64, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DtrmmTest(t, impl) })
}

func TestDgemv(t *testing.T) {
	onDevices(t, f64, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DgemvTest(t, impl) })
}

func TestDger(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DgerTest(t, impl) })
}

func TestDtxmv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DtxmvTest(t, impl) })
}

func TestDgbmv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DgbmvTest(t, impl) })
}

func TestDtbsv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DtbsvTest(t, impl) })
}

func TestDsbmv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DsbmvTest(t, impl) })
}

func TestDtbmv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DtbmvTest(t, impl) })
}

func TestDtrsv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DtrsvTest(t, impl) })
}

func TestDtrmv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DtrmvTest(t, impl) })
}

func TestDsymv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DsymvTest(t, impl) })
}

func TestDsyr(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DsyrTest(t, impl) })
}

func TestDsyr2(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.Dsyr2Test(t, impl) })
}

func TestDspr2(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.Dspr2Test(t, impl) })
}

func TestDspr(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DsprTest(t, impl) })
}

func TestDspmv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DspmvTest(t, impl) })
}

func TestDtpsv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DtpsvTest(t, impl) })
}

func TestDtpmv(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DtpmvTest(t, impl) })
}

func TestDasum(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DasumTest(t, impl) })
}

func TestDaxpy(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DaxpyTest(t, impl) })
}

func TestDdot(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DdotTest(t, impl) })
}

func TestDnrm2(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.Dnrm2Test(t, impl) })
}

func TestIdamax(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.IdamaxTest(t, impl) })
}

func TestDswap(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DswapTest(t, impl) })
}

func TestDcopy(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DcopyTest(t, impl) })
}

func TestDrotg(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DrotgTest(t, impl, false) })
}

func TestDrotmg(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DrotmgTest(t, impl) })
}

func TestDrot(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DrotTest(t, impl) })
}

func TestDrotm(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DrotmTest(t, impl) })
}

func TestDscal(t *testing.T) {
	onDevices(t, none, func(t *testing.T, impl *gonumblas.Implementation) { testblas.DscalTest(t, impl) })
}
