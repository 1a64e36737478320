"""factscope.backends"""
