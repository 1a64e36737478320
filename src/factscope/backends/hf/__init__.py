"""factscope.backends.hf"""
