// Source: https://github.com/abduld/Parboil/blob/a4c63da28f45699e9a274cbc49af3e067162aa2b/benchmarks/imghisto/src/cuda/main.cu (lines 16 and 35-46, closing brace added).
// Licence: University of Illinois/NCSA Open Source License, (C) Copyright 2007-2012 The Board of Trustees of the University of Illinois. Labels (`expect` comments) added by hipport, by reading the code.
int main(int argc, char **argv) {
  int num_devices=0;
  cudaGetDeviceCount(&num_devices);
  if(0 == num_devices){
    printf("Your system does not have a CUDA capable device\n");
    exit(1);
  }
  int device = atoi(argv[1]);
  cudaDeviceProp device_properties;
  cudaGetDeviceProperties(&device_properties,device);
  if((1 == device_properties.major)&&(device_properties.minor < 2)) {  // expect-ok: a warning for compute capability 1.0/1.1 only; false on every current GPU and on AMD
    printf("%s does not have compute capability 1.2 or later\n\n",device_properties.name);
  }
}
