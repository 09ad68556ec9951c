// Source: https://github.com/yuhc/gpu-rodinia/blob/9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4/cuda/huffman/vlc_kernel_sm64huff.cu (lines 37-55,117-160).
// Licence: MIT, Copyright (C) 2009 Ana Balevic (file in Rodinia). Labels (`expect` comments) added by hipport, by reading the code.
__global__ static void vlc_encode_kernel_sm64huff(unsigned int* data,
								  const unsigned int* gm_codewords, const unsigned int* gm_codewordlens,
							#ifdef TESTING
								  unsigned int* cw32, unsigned int* cw32len, unsigned int* cw32idx, 
							#endif
								  unsigned int* out, unsigned int *outidx){

	unsigned int kn = blockIdx.x*blockDim.x + threadIdx.x;
	unsigned int k = threadIdx.x;
	unsigned int kc, startbit, wrbits;

	unsigned long long cw64 =0;
	unsigned int val32, codewordlen = 0;
	unsigned char tmpbyte, tmpcwlen;
	unsigned int tmpcw32;

	extern __shared__ unsigned int sm[];
	__shared__ unsigned int kcmax;

	__syncthreads();

	if (k == blockDim.x-1) {
		outidx[blockIdx.x] = as[k] + codewordlen;
		kcmax = (as[k] + codewordlen)/32;  // expect-ok: bit offset to 32-bit word index (data packing, not lanes)
	}

	/* Write the codes */
	kc = as[k]/32;   // expect-ok: bit offset to 32-bit word index (data packing, not lanes)
	startbit = as[k]%32;   // expect-ok: bit position inside a 32-bit word (data packing)
	as[k] =  0U;
	__syncthreads();

	/* Part 1*/
	wrbits		= codewordlen > (32-startbit)? (32-startbit): codewordlen;  // expect-ok: bits left in a 32-bit word
	tmpcw32		= (unsigned int)(cw64>>(codewordlen - wrbits));		
	//if (wrbits == 32) as[kc] = tmpcw32;				//unnecessary overhead; increases number of branches
	//else
	atomicOr(&as[kc], tmpcw32<<(32-startbit-wrbits));	//shift left in case it's shorter then the available space  // expect-ok: shift inside a 32-bit word
	codewordlen		-= wrbits;

	/*Part 2*/
	if (codewordlen) {
	wrbits		= codewordlen > 32 ? 32: codewordlen;  // expect-ok: at most one 32-bit word
	tmpcw32		= (unsigned int)(cw64>>(codewordlen - wrbits)) & ((1<<wrbits)-1);	
	//if (wrbits == 32) as[kc+1] = tmpcw32;
	//else
	atomicOr(&as[kc+1], tmpcw32<<(32-wrbits));  // expect-ok: shift inside a 32-bit word
	codewordlen	-= wrbits;
	}

	/*Part 3*/
	if (codewordlen) {
	tmpcw32		= (unsigned int)(cw64 & ((1<<codewordlen)-1));
	//if (wrbits == 32) as[kc+2] = tmpcw32;
	//else
	atomicOr(&as[kc+2], tmpcw32<<(32-codewordlen));  // expect-ok: shift inside a 32-bit word
	}

	__syncthreads();

	if (k<=kcmax) out[kn] = as[k];

}
