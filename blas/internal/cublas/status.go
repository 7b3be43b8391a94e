package cublas

import "strconv"

// Status is a cublasStatus_t.
type Status int32

// cuBLAS status codes (cublas_api.h).
const (
	Success         Status = 0
	NotInitialized  Status = 1
	AllocFailed     Status = 3
	InvalidValue    Status = 7
	ArchMismatch    Status = 8
	MappingError    Status = 11
	ExecutionFailed Status = 13
	InternalError   Status = 14
	NotSupported    Status = 15
	LicenseError    Status = 16
)

// Name is the status's name in cublas_api.h, such as
// "CUBLAS_STATUS_INVALID_VALUE".
func (s Status) Name() string {
	switch s {
	case Success:
		return "CUBLAS_STATUS_SUCCESS"
	case NotInitialized:
		return "CUBLAS_STATUS_NOT_INITIALIZED"
	case AllocFailed:
		return "CUBLAS_STATUS_ALLOC_FAILED"
	case InvalidValue:
		return "CUBLAS_STATUS_INVALID_VALUE"
	case ArchMismatch:
		return "CUBLAS_STATUS_ARCH_MISMATCH"
	case MappingError:
		return "CUBLAS_STATUS_MAPPING_ERROR"
	case ExecutionFailed:
		return "CUBLAS_STATUS_EXECUTION_FAILED"
	case InternalError:
		return "CUBLAS_STATUS_INTERNAL_ERROR"
	case NotSupported:
		return "CUBLAS_STATUS_NOT_SUPPORTED"
	case LicenseError:
		return "CUBLAS_STATUS_LICENSE_ERROR"
	}
	return "CUBLAS_STATUS_" + strconv.Itoa(int(s))
}

func (s Status) String() string { return s.Name() }

// Error is the error of a failed call: the cuBLAS function and its
// status or, when making the handle's context current failed first (the
// function was then not called), the CUDA driver's result.
type Error struct {
	Func   string // the C function, such as "cublasSgemm_v2"
	Status Status // the function's status; Success when CUDA is set
	// CUDA is the CUresult of cuCtxSetCurrent when it failed, and
	// CUDAName its name ("CUDA_ERROR_INVALID_CONTEXT"); 0 otherwise.
	CUDA     int32
	CUDAName string
}

func (e *Error) Error() string {
	if e.CUDA != 0 {
		return "cublas: making the context current for " + e.Func + " failed: " + e.CUDAName
	}
	return "cublas: " + e.Func + ": " + e.Status.Name()
}

// Enumerations of cublas_api.h and library_types.h, as the C API takes
// them.
type (
	Operation   int32 // cublasOperation_t
	DataType    int32 // cudaDataType_t
	ComputeType int32 // cublasComputeType_t
	PointerMode int32 // cublasPointerMode_t
	Math        int32 // cublasMath_t
	Side        int32 // cublasSideMode_t
	Fill        int32 // cublasFillMode_t
	Diag        int32 // cublasDiagType_t
)

const (
	OpN Operation = 0 // CUBLAS_OP_N
	OpT Operation = 1 // CUBLAS_OP_T

	SideLeft  Side = 0 // CUBLAS_SIDE_LEFT
	SideRight Side = 1 // CUBLAS_SIDE_RIGHT

	FillLower Fill = 0 // CUBLAS_FILL_MODE_LOWER
	FillUpper Fill = 1 // CUBLAS_FILL_MODE_UPPER

	DiagNonUnit Diag = 0 // CUBLAS_DIAG_NON_UNIT
	DiagUnit    Diag = 1 // CUBLAS_DIAG_UNIT

	R32F  DataType = 0  // CUDA_R_32F
	R64F  DataType = 1  // CUDA_R_64F
	R16F  DataType = 2  // CUDA_R_16F
	R16BF DataType = 14 // CUDA_R_16BF

	Compute32F ComputeType = 68 // CUBLAS_COMPUTE_32F: float accumulation, no TF32
	Compute64F ComputeType = 70 // CUBLAS_COMPUTE_64F

	PointerHost   PointerMode = 0 // CUBLAS_POINTER_MODE_HOST
	PointerDevice PointerMode = 1 // CUBLAS_POINTER_MODE_DEVICE

	DefaultMath Math = 0 // CUBLAS_DEFAULT_MATH: no TF32 for float32
	// PedanticMath (CUBLAS_PEDANTIC_MATH) asks for the prescribed
	// precision and order everywhere.
	PedanticMath Math = 2

	// algoDefault is CUBLAS_GEMM_DEFAULT (-1), the heuristic choice of
	// kernel, as a C int in an argument slot.
	algoDefault = uintptr(0xffffffff)
)

func (d DataType) String() string {
	switch d {
	case R32F:
		return "CUDA_R_32F"
	case R64F:
		return "CUDA_R_64F"
	case R16F:
		return "CUDA_R_16F"
	case R16BF:
		return "CUDA_R_16BF"
	}
	return "cudaDataType " + strconv.Itoa(int(d))
}
